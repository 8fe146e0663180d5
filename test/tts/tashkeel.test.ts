/**
 * The tashkeel hook: with a tashkeel pack installed, Arabic espeak voices are diacritised before
 * phonemisation (as Piper does with libtashkeel), text voices are not.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { phonemizeSentences } from "../../src/tts/espeak/phonemes.ts";
import { prepareText } from "../../src/tts/frontend/index.ts";
import { loadTashkeel } from "../../src/tts/tashkeel/model.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { tempDir } from "../support/sawt.ts";
import {
  ARABIC_IPA_SYMBOLS,
  ARABIC_TEXT_SYMBOLS,
  decodeSentences,
  expectedIds,
  idMap,
  pcmToFloat,
  startEngine,
  speechRequest,
} from "./support.ts";
import { expectedHaraka, TASHKEEL_LENGTH, writeTashkeelPack } from "./tashkeel-model.ts";

const LETTERS: Record<string, number> = { " ": 2, م: 10, ر: 11, ح: 12, ب: 13, ا: 14, ك: 15 };
const IPA_MAP = idMap(ARABIC_IPA_SYMBOLS);
const TEXT_MAP = idMap(ARABIC_TEXT_SYMBOLS);

/** What the constructed model makes of unmarked `text`: one haraka added after each character. */
function diacritised(text: string): string {
  return Array.from(text.replace(/[\u064B-\u0652]/gu, ""))
    .map((c) => c + expectedHaraka(c, LETTERS))
    .join("");
}

describe("tashkeel", () => {
  const dir = tempDir("sawt-tts-tashkeel-");
  const models = join(dir.path, "models");
  let engine: Awaited<ReturnType<typeof startEngine>>;
  beforeAll(async () => {
    await writeTashkeelPack(join(models, "tashkeel"), LETTERS);
    await writePiperPack(join(models, "yara"), {
      name: "ar_ipa",
      sampleRate: 22050,
      phonemeIdMap: IPA_MAP,
      espeakVoice: "ar",
    });
    await writePiperPack(join(models, "sherine"), {
      name: "ar_text",
      sampleRate: 16000,
      phonemeIdMap: TEXT_MAP,
      phonemeType: "text",
    });
    engine = await startEngine(models);
  });
  afterAll(async () => {
    await engine.release();
    dir.remove();
  });

  test("does diacritise per the model, keeping the harakat the author wrote (D22), when the pack is loaded", async () => {
    const tashkeel = await loadTashkeel(join(models, "tashkeel"));
    expect(await tashkeel.diacritize("مرحبا بكم")).toBe(diacritised("مرحبا بكم"));
    expect(await tashkeel.diacritize("مَرْحبا")).toBe("مَرْ" + diacritised("حبا"));
    // Longer than the model's fixed window: processed window by window, nothing dropped.
    const long = "مرحبا ".repeat(Math.ceil(TASHKEEL_LENGTH / 6) + 5).trim();
    expect(await tashkeel.diacritize(long)).toBe(diacritised(long));
    await tashkeel.release();
  });

  test("does phonemise the diacritised text when an Arabic espeak voice speaks", async () => {
    expect(engine.details.tashkeel).toBe(true);
    const result = await engine.service.synthesize(speechRequest({ input: "مرحبا بكم", response_format: "pcm" }));
    const [plain] = await phonemizeSentences(prepareText("مرحبا بكم", "ar"), "ar");
    const [marked] = await phonemizeSentences(prepareText(diacritised("مرحبا بكم"), "ar"), "ar");
    expect(expectedIds(marked!, IPA_MAP)).not.toEqual(expectedIds(plain!, IPA_MAP));
    expect(decodeSentences(pcmToFloat(result.audio), result.sampleRate, 1)[0]!.ids).toEqual(
      expectedIds(marked!, IPA_MAP),
    );
  });

  test("does leave a text-phoneme voice's letters undiacritised", async () => {
    const result = await engine.service.synthesize(
      speechRequest({ input: "مرحبا", voice: "Sherine", response_format: "pcm" }),
    );
    expect(decodeSentences(pcmToFloat(result.audio), result.sampleRate, 1)[0]!.ids).toEqual(
      expectedIds(Array.from("مرحبا"), TEXT_MAP),
    );
  });
});
