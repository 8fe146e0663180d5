/**
 * Acceptance 2 and 3 from the audio: constructed tone voices spell the ids they were fed, so what
 * text reached a voice is read back from what the service returns. An Arabic espeak-phoneme voice
 * gets the phonemes of the diacritised text (the built-in model's reference output); a text voice
 * whose ids include the harakat receives the marks the author wrote, letter for letter.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { phonemizeSentences } from "../../../src/tts/espeak/phonemes.ts";
import { prepareText } from "../../../src/tts/frontend/index.ts";
import { writePiperPack } from "../../support/models/tone-voice.ts";
import { tempDir } from "../../support/sawt.ts";
import {
  ARABIC_IPA_SYMBOLS,
  ARABIC_TEXT_SYMBOLS,
  decodeSentences,
  expectedIds,
  idMap,
  pcmToFloat,
  speechRequest,
  startEngine,
} from "../support.ts";
import { REFERENCE_INPUT, REFERENCE_OUTPUT } from "./support.ts";

const IPA_MAP = idMap(ARABIC_IPA_SYMBOLS);
const TEXT_MAP = idMap(ARABIC_TEXT_SYMBOLS);

describe("diacritised text reaching constructed voices", () => {
  const dir = tempDir("sawt-arabic-voices-");
  const models = join(dir.path, "models");
  let engine: Awaited<ReturnType<typeof startEngine>>;
  beforeAll(async () => {
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

  async function idsSpoken(body: Record<string, unknown>): Promise<number[][]> {
    const result = await engine.service.synthesize(speechRequest({ response_format: "pcm", ...body }));
    return decodeSentences(pcmToFloat(result.audio), result.sampleRate, 1).map((d) => d.ids);
  }

  test("does feed an Arabic espeak-phoneme voice the phonemes of the reference diacritisation with no tashkeel pack", async () => {
    const [diacritised] = await phonemizeSentences(prepareText(REFERENCE_OUTPUT, "ar"), "ar");
    const [plain] = await phonemizeSentences(prepareText(REFERENCE_INPUT, "ar"), "ar");
    expect(expectedIds(diacritised!, IPA_MAP)).not.toEqual(expectedIds(plain!, IPA_MAP));
    expect(await idsSpoken({ input: REFERENCE_INPUT })).toEqual([expectedIds(diacritised!, IPA_MAP)]);
  });

  test("does hand a text voice with harakat ids the marks the author wrote", async () => {
    const input = "اتصل بمُحمّد";
    const ids = await idsSpoken({ input, voice: "Sherine" });
    expect(ids).toEqual([expectedIds(Array.from(input.normalize("NFKC").normalize("NFD")), TEXT_MAP)]);
    // The damma and the shadda are there, as ids of their own.
    expect(ids[0]).toContain(TEXT_MAP["\u064F"]!);
    expect(ids[0]).toContain(TEXT_MAP["\u0651"]!);
  });

  test("does keep the author's marks in what an espeak-phoneme voice is fed", async () => {
    const analysis = await engine.service.analyze(speechRequest({ input: "اتصل بمُحمد" }));
    const item = analysis.sentences[0]!;
    if (item.type !== "sentence") throw new Error("expected a sentence");
    expect(item.diacritized).toContain("بِمُ");
    const [phonemes] = await phonemizeSentences(prepareText(item.diacritized, "ar"), "ar");
    expect(await idsSpoken({ input: "اتصل بمُحمد" })).toEqual([expectedIds(phonemes!, IPA_MAP)]);
  });
});
