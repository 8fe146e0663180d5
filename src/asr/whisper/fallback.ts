/**
 * Whisper's temperature fallback, as its reference decoder (`transcribe.py`) runs it: decode at
 * temperature 0 (greedy); when the text repeats itself (compression ratio above 2.4) or is
 * improbable (mean log-probability below −1), decode again at 0.2, 0.4, … 1.0 by sampling, and
 * keep the first result that passes (or the last one). Sampling uses a seeded generator, so a
 * recording always decodes to the same text.
 */
import { deflateSync } from "node:zlib";

/** Compression ratio above which a text counts as repetitive. */
export const COMPRESSION_RATIO_THRESHOLD = 2.4;
/** Mean log-probability below which a decode counts as failed. */
export const LOGPROB_THRESHOLD = -1.0;
/** Step between the temperatures tried. */
export const TEMPERATURE_STEP = 0.2;

/** UTF-8 bytes of `text` over its zlib-compressed bytes (Python's `zlib.compress`, default level). */
export function compressionRatio(text: string): number {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length === 0) return 0;
  return bytes.length / deflateSync(bytes).length;
}

/** Temperatures tried from `first` (0 by default) up to 1.0 in steps of 0.2. */
export function temperatures(requested = 0): number[] {
  // A float32 from gRPC (0.2 → 0.2000000029) must still reach 1.0 in steps of 0.2.
  const first = Math.round(requested * 1000) / 1000;
  const out: number[] = [];
  for (let k = 0; first + k * TEMPERATURE_STEP <= 1 + 1e-9; k++)
    out.push(Math.round((first + k * TEMPERATURE_STEP) * 1000) / 1000);
  return out.length > 0 ? out : [1];
}

/** Whether a decode needs another try at a higher temperature. */
export function needsFallback(ratio: number, avgLogprob: number): boolean {
  return ratio > COMPRESSION_RATIO_THRESHOLD || avgLogprob < LOGPROB_THRESHOLD;
}

/** A small seeded generator (mulberry32): uniform floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Log-probability of `id` under softmax of the allowed logits (suppressed ones excluded). */
export function logProbability(logits: Float32Array, id: number, suppressed: (id: number) => boolean): number {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (!suppressed(i) && logits[i]! > max) max = logits[i]!;
  let sum = 0;
  for (let i = 0; i < logits.length; i++) if (!suppressed(i)) sum += Math.exp(logits[i]! - max);
  return logits[id]! - max - Math.log(sum);
}

/** Samples an id from softmax(logits / temperature) over the allowed ids; -1 when none is allowed. */
export function sample(
  logits: Float32Array,
  temperature: number,
  suppressed: (id: number) => boolean,
  random: () => number,
): number {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (!suppressed(i) && logits[i]! > max) max = logits[i]!;
  if (max === -Infinity) return -1;
  let sum = 0;
  const weights = new Float64Array(logits.length);
  for (let i = 0; i < logits.length; i++) {
    if (suppressed(i)) continue;
    weights[i] = Math.exp((logits[i]! - max) / temperature);
    sum += weights[i]!;
  }
  let target = random() * sum;
  let last = -1;
  for (let i = 0; i < logits.length; i++) {
    if (weights[i] === 0) continue;
    last = i;
    target -= weights[i]!;
    if (target < 0) return i;
  }
  return last;
}
