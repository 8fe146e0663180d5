/**
 * Helpers for TTS tests: constructed tone-voice packs with known id maps, a real TTS engine over
 * a models directory, and readers that turn the service's audio back into ids per sentence.
 */
import { parseSpeechRequest } from "../../src/tts/schema.ts";
import type { SpeechRequest } from "../../src/tts/types.ts";
import { join } from "node:path";
import { bytesToInt16, parseWavHeader } from "../../src/audio/wav.ts";
import { loadConfig, type SawtConfig } from "../../src/config/config.ts";
import { log } from "../../src/log/logger.ts";
import { Admission } from "../../src/serving/admission.ts";
import { createTtsEngine, type TtsEngine } from "../../src/tts/loader.ts";
import { decodeToneAudio, type DecodedTones } from "../support/models/tone-decoder.ts";
import { PIPER_SPECIAL_IDS } from "../support/models/tone-voice.ts";

/** Piper's special ids as the tone packs carry them. */
export const SPECIAL = {
  pad: PIPER_SPECIAL_IDS._![0]!,
  bos: PIPER_SPECIAL_IDS["^"]![0]!,
  eos: PIPER_SPECIAL_IDS.$![0]!,
  space: PIPER_SPECIAL_IDS[" "]![0]!,
} as const;

/** Assigns ids from 4 upwards to each code point of `symbols`, in order. */
export function idMap(symbols: string): Record<string, number> {
  const map: Record<string, number> = {};
  let next = 4;
  for (const symbol of Array.from(symbols)) if (!(symbol in map)) map[symbol] = next++;
  return map;
}

/**
 * Arabic letters, harakat (tanween included), the madda/hamza marks NFD splits off آ أ إ ؤ ئ,
 * digits and punctuation for text-phoneme voices.
 * Digits have ids on purpose: if "150" ever reached the model unread, its ids would show.
 */
export const ARABIC_TEXT_SYMBOLS =
  "ءآأؤإئابةتثجحخدذرزسشصضطظعغفقكلمنهوىي" +
  "\u064B\u064C\u064D\u064E\u064F\u0650\u0651\u0652\u0653\u0654\u0655" +
  "0123456789" +
  ".,،?؟!";

/**
 * IPA symbols espeak's Arabic voice uses, without the stress marks ˈ ˌ: those must be skipped as
 * unknown phonemes, which the id sequence then proves.
 */
export const ARABIC_IPA_SYMBOLS = "abdfhijklmnqrstuwzðħʃʒʔʕˤχɣθːeoɡv" + ".,?!:;";

/** The ids Piper's rules give `phonemes` under `map` (written independently of the service). */
export function expectedIds(phonemes: readonly string[], map: Readonly<Record<string, number>>): number[] {
  const ids = [SPECIAL.bos, SPECIAL.pad];
  for (const p of phonemes) {
    const id = p === " " ? SPECIAL.space : map[p];
    if (id !== undefined) ids.push(id, SPECIAL.pad);
  }
  ids.push(SPECIAL.eos);
  return ids;
}

/** A TTS engine over `modelsDir` with its own admission gate. */
export async function startEngine(
  modelsDir: string,
  env: Record<string, string> = {},
  admission?: Partial<{ concurrency: number; maxQueue: number }>,
): Promise<TtsEngine & { config: SawtConfig; admission: Admission }> {
  const config = loadConfig({
    env: { SAWT_MODELS_DIR: modelsDir, SAWT_DATA_DIR: join(modelsDir, "..", "data"), ...env },
    cwd: modelsDir,
  });
  const gate = new Admission({
    name: "tts",
    concurrency: admission?.concurrency ?? 2,
    maxQueue: admission?.maxQueue ?? 8,
    queueTimeoutMs: 30_000,
    busyDetail: "Service busy, please try again later",
    timeoutDetail: "Request timeout waiting for GPU",
  });
  const engine = await createTtsEngine(config, { admission: gate, log });
  return { ...engine, config, admission: gate };
}

/** Float samples of s16le bytes. */
export function pcmToFloat(bytes: Uint8Array): Float32Array {
  const int16 = bytesToInt16(bytes.byteOffset % 2 === 0 ? bytes : bytes.slice());
  return Float32Array.from(int16, (x) => x / 32768);
}

/** Samples and rate of a WAV file. */
export function wavToFloat(bytes: Uint8Array): { samples: Float32Array; sampleRate: number } {
  const info = parseWavHeader(bytes);
  return {
    samples: pcmToFloat(bytes.subarray(info.dataOffset, info.dataOffset + info.dataBytes)),
    sampleRate: info.sampleRate,
  };
}

/**
 * Splits audio at runs of exact digital silence of at least `minSilenceSeconds` (the service's
 * sentence silence); tones never hold zero for two samples running, so only that silence splits.
 * Every tone segment starts at phase 0, i.e. with an exact zero: that last zero of a run is given
 * back to the sentence after it.
 */
export function splitAtSilence(samples: Float32Array, sampleRate: number, minSilenceSeconds = 0.1): Float32Array[] {
  const minRun = Math.round(minSilenceSeconds * sampleRate);
  const parts: Float32Array[] = [];
  let start = 0;
  let zeros = 0;
  for (let i = 0; i <= samples.length; i++) {
    if (i < samples.length && samples[i] === 0) {
      zeros++;
      continue;
    }
    if (zeros >= minRun) {
      const end = i - zeros;
      if (end > start) parts.push(samples.subarray(start, end));
      start = i - 1;
    }
    zeros = 0;
  }
  if (start < samples.length) parts.push(samples.subarray(start));
  return parts;
}

/** Silent runs of at least `minSilenceSeconds`, as lengths in samples (less the next tone's starting zero). */
export function silenceRuns(samples: Float32Array, sampleRate: number, minSilenceSeconds = 0.1): number[] {
  const runs: number[] = [];
  let zeros = 0;
  for (let i = 0; i <= samples.length; i++) {
    if (i < samples.length && samples[i] === 0) zeros++;
    else {
      if (zeros >= minSilenceSeconds * sampleRate) runs.push(i < samples.length ? zeros - 1 : zeros);
      zeros = 0;
    }
  }
  return runs;
}

/** Decodes each sentence of tone-voice audio made with `lengthScale`. */
export function decodeSentences(samples: Float32Array, sampleRate: number, lengthScale: number): DecodedTones[] {
  return splitAtSilence(samples, sampleRate).map((part) => decodeToneAudio(part, sampleRate, { lengthScale }));
}

/** Root-mean-square level of `samples`. */
export function rms(samples: Float32Array): number {
  let sum = 0;
  for (const x of samples) sum += x * x;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

/** A speech request validated as REST validates a JSON body (default limits), for tests that call the service directly. */
export function speechRequest(body: unknown, headerDialect: string | null = null): SpeechRequest {
  return parseSpeechRequest(body, headerDialect, { tts: { max_input_chars: 51_200, blocked_patterns: [] } });
}
