/**
 * Speech segmentation of an audio stream: cuts the audio into {@link VAD_WINDOW}-sample windows,
 * scores each with a voice-activity detector and feeds the scores to the segmenter. A whole file
 * goes through the same tracker as a live stream (one push, then end), so a stream's final spans
 * are exactly the file's.
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import { scoreWindows, VAD_WINDOW, type VadStream, type VoiceActivityDetector } from "../recognizer.ts";
import { SpeechSegmenter, type SegmenterOptions, type SpeechSpan } from "./segmenter.ts";

/** Most windows scored per batch (≈ 16 s): bounds memory and lets an abort land between batches. */
const WINDOWS_PER_BATCH = 512;

/** A final span with its audio. */
export interface SpeechPiece extends SpeechSpan {
  readonly samples: Float32Array;
}

/**
 * Growable sample store addressed by absolute sample index, forgetting what is no longer needed.
 * Shared by the file segmenter here and the live sessions (../streaming/live.ts).
 */
export class SampleBuffer {
  private data = new Float32Array(1 << 16);
  private base = 0;
  private length = 0;

  get end(): number {
    return this.base + this.length;
  }

  /** Samples held now. */
  get held(): number {
    return this.length;
  }

  append(chunk: Float32Array): void {
    if (this.length + chunk.length > this.data.length) {
      const grown = new Float32Array(Math.max(this.data.length * 2, this.length + chunk.length));
      grown.set(this.data.subarray(0, this.length));
      this.data = grown;
    }
    this.data.set(chunk, this.length);
    this.length += chunk.length;
  }

  /** Copy of `[start, end)`; samples already forgotten or not yet received are zeros. */
  slice(start: number, end: number): Float32Array {
    const out = new Float32Array(Math.max(0, end - start));
    const from = Math.max(start, this.base);
    const to = Math.min(end, this.end);
    if (to > from) out.set(this.data.subarray(from - this.base, to - this.base), from - start);
    return out;
  }

  dropBefore(position: number): void {
    const drop = Math.min(this.length, position - this.base);
    if (drop <= 0) return;
    this.data.copyWithin(0, drop, this.length);
    this.base += drop;
    this.length -= drop;
  }
}

/** Tracks speech in one audio stream. */
export class SpeechTracker {
  private readonly segmenter: SpeechSegmenter;
  private readonly stream: VadStream;
  private readonly buffer = new SampleBuffer();
  private scored = 0;
  private readonly keepBehind: number;

  constructor(detector: VoiceActivityDetector, options: Partial<SegmenterOptions> = {}) {
    this.segmenter = new SpeechSegmenter(options);
    this.stream = detector.createStream();
    // A span may begin one window plus its pad before the window that triggered it.
    this.keepBehind =
      VAD_WINDOW + Math.ceil(((options.speechPadMs ?? 30) * (options.sampleRate ?? SPEECH_SAMPLE_RATE)) / 1000);
  }

  /** Samples received. */
  get received(): number {
    return this.buffer.end;
  }

  /** Padded start of the speech in progress, or null in silence. */
  get activeStart(): number | null {
    return this.segmenter.activeStart;
  }

  /** Samples of audio the tracker holds now (the speech in progress and the window context). */
  get held(): number {
    return this.buffer.held;
  }

  /** No span this tracker returns later starts before this sample. */
  get nextStartFloor(): number {
    return this.segmenter.nextStartFloor;
  }

  /** Audio `[start, end)` still held (the speech in progress is always held). */
  slice(start: number, end: number): Float32Array {
    return this.buffer.slice(start, end);
  }

  /** Adds audio; returns spans that became final. */
  async push(chunk: Float32Array, signal?: AbortSignal): Promise<SpeechPiece[]> {
    this.buffer.append(chunk);
    const pieces: SpeechPiece[] = [];
    while (this.scored + VAD_WINDOW <= this.buffer.end) {
      signal?.throwIfAborted();
      // Every whole window received so far, scored in one batch when the detector can (only the
      // windows scored are copied out: a per-window detector takes one at a time).
      const whole = Math.floor((this.buffer.end - this.scored) / VAD_WINDOW);
      const count = this.stream.probabilities ? Math.min(WINDOWS_PER_BATCH, whole) : 1;
      const windows = Array.from({ length: count }, (_, i) =>
        this.buffer.slice(this.scored + i * VAD_WINDOW, this.scored + (i + 1) * VAD_WINDOW),
      );
      for (const p of await scoreWindows(this.stream, windows)) {
        this.scored += VAD_WINDOW;
        for (const span of this.segmenter.push(p))
          pieces.push({ ...span, samples: this.buffer.slice(span.start, span.end) });
      }
    }
    this.forget();
    return pieces;
  }

  /** Ends the stream: scores the last partial window (zero-padded) and closes open speech. */
  async end(signal?: AbortSignal): Promise<SpeechPiece[]> {
    const total = this.buffer.end;
    const pieces: SpeechPiece[] = [];
    const take = (spans: SpeechSpan[]) => {
      for (const span of spans) {
        // The zero-padded last window must not stretch a span past the audio.
        const end = Math.min(span.end, total);
        if (end > span.start) pieces.push({ start: span.start, end, samples: this.buffer.slice(span.start, end) });
      }
    };
    if (this.scored < total) {
      signal?.throwIfAborted();
      take(
        this.segmenter.push(await this.stream.probability(this.buffer.slice(this.scored, this.scored + VAD_WINDOW))),
      );
      this.scored += VAD_WINDOW;
    }
    take(this.segmenter.finish(total));
    return pieces;
  }

  private forget(): void {
    const active = this.segmenter.activeStart;
    this.buffer.dropBefore(active ?? this.scored - this.keepBehind);
  }
}

/** Speech spans of a whole recording, in order. */
export async function segmentSpeech(
  samples: Float32Array,
  detector: VoiceActivityDetector,
  options: Partial<SegmenterOptions> = {},
  signal?: AbortSignal,
): Promise<SpeechPiece[]> {
  const tracker = new SpeechTracker(detector, options);
  const pieces = await tracker.push(samples, signal);
  pieces.push(...(await tracker.end(signal)));
  return pieces;
}
