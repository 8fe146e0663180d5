/**
 * NeMo log-mel features computed as audio arrives, frame for frame equal to {@link nemoFbank} over
 * the whole audio (without normalisation: cache-aware streaming models are exported with
 * `normalize_type` empty, and a per-utterance mean cannot be known mid-stream). Frame t is centred
 * on sample 160·t and its 400-sample window reaches 200 samples either side, so it is final once
 * 160·t + 200 samples are in. Each call recomputes from two frames before the first new one (the
 * STFT's zero padding and the preemphasis touch only the first two frames of a slice).
 */
import { nemoFbank } from "../../audio/features/fbank.ts";

const HOP = 160;
const HALF_WINDOW = 200;
/** Frames before the first new one that a slice needs so that its edge does not show. */
const LEAD = 2;

/** Incremental NeMo features of one stream. */
export class StreamingFeatures {
  private audio = new Float32Array(1 << 15);
  /** Absolute index of `audio[0]`. */
  private base = 0;
  private end = 0;
  /** Frames made so far, each `[featDim]`; dropped from the front as the consumer advances. */
  private frames: Float32Array[] = [];
  private firstFrame = 0;

  constructor(private readonly featDim: number) {}

  /** Appends samples and computes every frame they complete. */
  accept(samples: Float32Array): void {
    this.grow(samples.length);
    this.audio.set(samples, this.end - this.base);
    this.end += samples.length;
    this.compute();
  }

  /** Frames made so far (absolute count, including ones already dropped). */
  get available(): number {
    return this.firstFrame + this.frames.length;
  }

  /** Frames `[from, from + count)` laid out `[featDim, count]` (channels first, as the encoders take them). */
  window(from: number, count: number): Float32Array {
    const out = new Float32Array(this.featDim * count);
    for (let t = 0; t < count; t++) {
      const frame = this.frames[from + t - this.firstFrame];
      if (frame === undefined) throw new RangeError(`feature frame ${from + t} is not available`);
      for (let c = 0; c < this.featDim; c++) out[c * count + t] = frame[c]!;
    }
    return out;
  }

  /** Forgets frames before `frame` (the consumer will not ask for them again). */
  dropBefore(frame: number): void {
    const drop = Math.min(this.frames.length, frame - this.firstFrame);
    if (drop <= 0) return;
    this.frames.splice(0, drop);
    this.firstFrame += drop;
  }

  private compute(): void {
    const last = Math.floor((this.end - HALF_WINDOW) / HOP);
    const next = this.available;
    if (last < next) return;
    const start = Math.max(0, next - LEAD);
    const slice = this.audio.subarray(start * HOP - this.base, this.end - this.base);
    const { data, nFrames } = nemoFbank(slice, { nMels: this.featDim, normalize: "none" });
    for (let t = next; t <= last; t++) {
      const frame = new Float32Array(this.featDim);
      for (let c = 0; c < this.featDim; c++) frame[c] = data[c * nFrames + (t - start)]!;
      this.frames.push(frame);
    }
    this.trim(Math.max(0, (this.available - LEAD) * HOP - HALF_WINDOW));
  }

  /** Drops audio before absolute sample `keepFrom` once enough has piled up. */
  private trim(keepFrom: number): void {
    const drop = keepFrom - this.base;
    if (drop < 1 << 16) return;
    this.audio.copyWithin(0, drop, this.end - this.base);
    this.base += drop;
  }

  private grow(extra: number): void {
    const needed = this.end - this.base + extra;
    if (needed <= this.audio.length) return;
    let size = this.audio.length;
    while (size < needed) size *= 2;
    const bigger = new Float32Array(size);
    bigger.set(this.audio.subarray(0, this.end - this.base));
    this.audio = bigger;
  }
}
