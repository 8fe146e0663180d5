/**
 * The number-reading front-end is wired into synthesis: digits never reach a model, their Arabic
 * (or English) words do. A text-phoneme voice feeds the model the letters themselves, and digits
 * have ids in its map, so the ids decoded from the audio show exactly what was read.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { tempDir } from "../support/sawt.ts";
import {
  ARABIC_TEXT_SYMBOLS,
  decodeSentences,
  idMap,
  pcmToFloat,
  SPECIAL,
  startEngine,
  speechRequest,
} from "./support.ts";

const MAP = idMap(ARABIC_TEXT_SYMBOLS);
const SYMBOL_OF = new Map<number, string>([
  ...Object.entries(MAP).map(([s, id]) => [id, s] as const),
  [SPECIAL.space, " "],
]);

/** The text a tone-voice utterance spelled, pads and bos/eos dropped. */
function spelled(ids: readonly number[]): string {
  return ids
    .filter((id) => id !== SPECIAL.pad && id !== SPECIAL.bos && id !== SPECIAL.eos)
    .map((id) => SYMBOL_OF.get(id) ?? "?")
    .join("")
    .normalize("NFC");
}

describe("numbers in speech", () => {
  const dir = tempDir("sawt-tts-numbers-");
  let engine: Awaited<ReturnType<typeof startEngine>>;
  beforeAll(async () => {
    await writePiperPack(join(dir.path, "models", "yara"), {
      name: "ar_text",
      sampleRate: 16000,
      phonemeIdMap: MAP,
      phonemeType: "text",
    });
    engine = await startEngine(join(dir.path, "models"));
  });
  afterAll(async () => {
    await engine.release();
    dir.remove();
  });

  test("does feed the model Arabic words, not digits, when the text says 150 ريال", async () => {
    const result = await engine.service.synthesize(speechRequest({ input: "150 ريال", response_format: "pcm" }));
    const [decoded] = decodeSentences(pcmToFloat(result.audio), result.sampleRate, 1);
    const text = spelled(decoded!.ids);
    expect(text).not.toMatch(/[0-9]/);
    expect(text).toBe("مئة وخمسون ريالًا");
  });

  test("does read Arabic-Indic digits as words when the text says ٣٠ ريال", async () => {
    const result = await engine.service.synthesize(speechRequest({ input: "الرصيد ٣٠ ريال.", response_format: "pcm" }));
    const text = spelled(decodeSentences(pcmToFloat(result.audio), result.sampleRate, 1)[0]!.ids);
    expect(text).not.toMatch(/[0-9٠-٩]/);
    expect(text.startsWith("الرصيد ثلاثون")).toBe(true);
  });
});
