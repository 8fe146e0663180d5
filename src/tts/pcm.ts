/**
 * PCM assembly for synthesis: sentence level, sentence silence, and one growing buffer that a
 * long input (51,200 code points ≈ an hour of speech) is written into sentence by sentence,
 * so no per-sentence copies outlive their sentence.
 */
import { peakNormalize } from "../audio/wav.ts";

/** Silence after each sentence but the last, as Piper's `sentence_silence` default. */
export const SENTENCE_SILENCE_SECONDS = 0.2;
/** Peak ceiling: headroom for lossy codecs, whose decoded output overshoots the input peak. */
export const PEAK_CEILING = 0.95;

/**
 * Brings one sentence's audio to a safe level in place. A sentence peaking above
 * {@link PEAK_CEILING} is scaled down to it (no clipping in the int16 conversion); quieter audio
 * keeps the voice's own level. Piper instead scales every sentence to full scale; that makes
 * loudness jump from sentence to sentence in a stream and blows a near-silent sentence's noise
 * up a hundredfold, while VITS voices are already trained on level-normalised speech.
 */
export function levelSentence(samples: Float32Array): Float32Array {
  return peakNormalize(samples, PEAK_CEILING, 1);
}

/** Number of silent samples between sentences at `sampleRate`. */
export function sentenceSilenceSamples(sampleRate: number): number {
  return Math.round(SENTENCE_SILENCE_SECONDS * sampleRate);
}

/**
 * A Float32 buffer that grows geometrically (×1.5) and can be sized ahead from an estimate, so
 * appending an hour of audio copies it a handful of times and {@link view} hands out the result
 * without a final copy.
 */
export class PcmBuffer {
  private data: Float32Array;
  private used = 0;

  constructor(initialCapacity = 1 << 16) {
    this.data = new Float32Array(Math.max(1, initialCapacity));
  }

  /** Samples written so far. */
  get length(): number {
    return this.used;
  }

  /** Makes room for at least `total` samples in all. */
  reserve(total: number): void {
    if (total <= this.data.length) return;
    const next = new Float32Array(Math.ceil(total));
    next.set(this.data.subarray(0, this.used));
    this.data = next;
  }

  /** Appends samples. */
  append(samples: Float32Array): void {
    this.ensure(samples.length);
    this.data.set(samples, this.used);
    this.used += samples.length;
  }

  /** Appends `count` zero samples. */
  appendSilence(count: number): void {
    this.ensure(count);
    // A reused region may hold nothing but zeros already; fill anyway, it is cheap and exact.
    this.data.fill(0, this.used, this.used + count);
    this.used += count;
  }

  /** The samples written, sharing the buffer (no copy). */
  view(): Float32Array {
    return this.data.subarray(0, this.used);
  }

  private ensure(extra: number): void {
    const needed = this.used + extra;
    if (needed > this.data.length) this.reserve(Math.max(needed, this.data.length * 1.5));
  }
}
