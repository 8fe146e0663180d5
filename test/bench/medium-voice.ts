/**
 * The realistic-cost voice the TTS benchmarks share: the constructed Piper-medium-shaped VITS
 * voice (test/support/models/piper-medium.ts) with espeak-ng's Arabic IPA as its id map, written
 * as a Piper pack (`yara/` of a models dir, what `sawt serve` loads) and as a sherpa-onnx pack,
 * plus the ids Sawt feeds it for a prompt. Not a benchmark itself.
 */
import "../support/families.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { closeEspeak } from "../../src/tts/espeak/library.ts";
import { phonemizeSentences } from "../../src/tts/espeak/phonemes.ts";
import { prepareText } from "../../src/tts/frontend/index.ts";
import { parsePiperConfig } from "../../src/tts/piper/config.ts";
import { phonemesToIds } from "../../src/tts/piper/pipeline.ts";
import { type PiperMediumPacks, writePiperMediumPacks } from "../support/models/piper-medium.ts";
import { ARABIC_IPA_SYMBOLS, idMap } from "../tts/support.ts";

/** An IVR greeting: one sentence, no digits (sherpa-onnx does not read numbers), no inner punctuation. */
export const IVR_SENTENCE = "مرحبا بكم في خدمة العملاء";

/**
 * Server settings every benchmark on this voice uses. Tashkeel is off because sherpa-onnx does not
 * diacritise: both then feed the model espeak's reading of the same letters, and raw gets the
 * same ids as Sawt.
 */
export const MEDIUM_VOICE_ENV = { SAWT_TTS_TASHKEEL: "off" } as const;

/** Writes the voice as `<modelsDir>/yara` (Piper) and as `sherpaDir` (sherpa-onnx; default beside modelsDir). */
export function writeMediumVoice(modelsDir: string, sherpaDir = join(modelsDir, "..", "sherpa-medium")) {
  return writePiperMediumPacks(
    { piper: join(modelsDir, "yara"), sherpa: sherpaDir },
    {
      phonemeIdMap: idMap(ARABIC_IPA_SYMBOLS),
    },
  );
}

/**
 * The ids Sawt's Piper pipeline feeds for a one-sentence `text` with tashkeel off: front-end,
 * espeak-ng phonemes, Piper's `^ _ (p _)* $` rule (Sawt's own modules, so they cannot drift).
 */
export async function mediumVoiceIds(packs: PiperMediumPacks, text: string): Promise<number[]> {
  const { modelPath, configPath } = packs.piper;
  const config = parsePiperConfig(JSON.parse(readFileSync(configPath, "utf8")), modelPath);
  const sentences = prepareText(text, config.language);
  if (sentences.length !== 1) throw new Error(`the prompt must be one sentence, got ${sentences.length}`);
  const [phonemes] = await phonemizeSentences(sentences, config.espeakVoice);
  await closeEspeak();
  return phonemesToIds(phonemes ?? [], config).ids;
}
