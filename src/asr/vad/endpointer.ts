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
export interface SpanAudio extends SpeechSpan {
  readonly samples: Float32Array;
}

/**
 * Growable sample store addressed by absolute sample index, forgetting what is no longer needed.
 * Shared by the file segmenter here and the live transcriber (../live/transcriber.ts).
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

/** What the endpointer decided at one window: an utterance started, or one ended with its span. */
export type TurnChange =
  | { readonly type: "start"; readonly at: number }
  | { readonly type: "end"; readonly span: SpeechSpan };

/**
 * THE endpointer: scores the {@link VAD_WINDOW}-sample windows of a {@link SampleBuffer} with a
 * voice-activity detector (a batch per call when the detector batches) and feeds the scores to
 * the {@link SpeechSegmenter}, reporting where utterances start and end in order. A file
 * (SpeechTracker) and every live door (src/asr/live) find their utterances with it; they differ
 * only in the segmenter's options (the file rule, or turn-detection settings).
 */
export class Endpointer {
  private readonly segmenter: SpeechSegmenter;
  private readonly stream: VadStream;
  private scoredTo = 0;

  constructor(detector: VoiceActivityDetector, options: Partial<SegmenterOptions> = {}) {
    this.segmenter = new SpeechSegmenter(options);
    this.stream = detector.createStream();
  }

  /** End of the audio scored so far. */
  get scored(): number {
    return this.scoredTo;
  }

  /** Padded start of the utterance in progress, or null in silence. */
  get openStart(): number | null {
    return this.segmenter.activeStart;
  }

  /** No span reported later starts before this sample. */
  get nextStartFloor(): number {
    return this.segmenter.nextStartFloor;
  }

  /** Scores every whole window of `buffer` not yet scored; the turns they started and ended, in order. */
  async advance(buffer: SampleBuffer, signal?: AbortSignal): Promise<TurnChange[]> {
    const changes: TurnChange[] = [];
    while (this.scoredTo + VAD_WINDOW <= buffer.end) {
      signal?.throwIfAborted();
      // Only the windows scored are copied out: a per-window detector takes one at a time.
      const whole = Math.floor((buffer.end - this.scoredTo) / VAD_WINDOW);
      const count = this.stream.probabilities ? Math.min(WINDOWS_PER_BATCH, whole) : 1;
      const from = this.scoredTo;
      const windows = Array.from({ length: count }, (_, i) =>
        buffer.slice(from + i * VAD_WINDOW, from + (i + 1) * VAD_WINDOW),
      );
      for (const p of await scoreWindows(this.stream, windows)) this.decide(p, changes);
    }
    return changes;
  }

  /**
   * The audio ended at `buffer.end`: with `scoreTail` the last partial window is scored
   * zero-padded (as a file's last window is), then open speech is closed, never past the audio.
   */
  async finish(buffer: SampleBuffer, scoreTail: boolean, signal?: AbortSignal): Promise<TurnChange[]> {
    const total = buffer.end;
    const changes: TurnChange[] = [];
    if (scoreTail && this.scoredTo < total) {
      signal?.throwIfAborted();
      this.decide(await this.stream.probability(buffer.slice(this.scoredTo, this.scoredTo + VAD_WINDOW)), changes);
    }
    for (const span of this.segmenter.finish(total)) changes.push({ type: "end", span });
    // The zero-padded last window must not stretch a span past the audio.
    return changes.flatMap((c) =>
      c.type === "end" && c.span.end > total
        ? c.span.start < total
          ? [{ type: "end" as const, span: { start: c.span.start, end: total } }]
          : []
        : [c],
    );
  }

  /** Ends the open utterance at `at` (a client commit); the next window is read from `at`. */
  close(at: number): SpeechSpan | null {
    const span = this.segmenter.close(at)[0] ?? null;
    this.scoredTo = Math.max(this.scoredTo, at);
    return span;
  }

  /** Forgets the open utterance (a client clear); the next window is read from `at`. */
  reset(at: number): void {
    this.segmenter.reset(at);
    this.scoredTo = Math.max(this.scoredTo, at);
  }

  private decide(p: number, changes: TurnChange[]): void {
    const wasOpen = this.segmenter.activeStart !== null;
    this.scoredTo = this.segmenter.position + VAD_WINDOW;
    const spans = this.segmenter.push(p);
    for (const span of spans) changes.push({ type: "end", span });
    const open = this.segmenter.activeStart;
    // A new utterance: speech began in silence, or a long one was cut and goes on without a gap.
    if (open !== null && (!wasOpen || spans.length > 0)) changes.push({ type: "start", at: open });
  }
}

/** Tracks speech in one audio stream (a file's, or a long upload's as it is decoded). */
export class SpeechTracker {
  private readonly endpointer: Endpointer;
  private readonly buffer = new SampleBuffer();
  private readonly keepBehind: number;

  constructor(detector: VoiceActivityDetector, options: Partial<SegmenterOptions> = {}) {
    this.endpointer = new Endpointer(detector, options);
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
    return this.endpointer.openStart;
  }

  /** Samples of audio the tracker holds now (the speech in progress and the window context). */
  get held(): number {
    return this.buffer.held;
  }

  /** No span this tracker returns later starts before this sample. */
  get nextStartFloor(): number {
    return this.endpointer.nextStartFloor;
  }

  /** Audio `[start, end)` still held (the speech in progress is always held). */
  slice(start: number, end: number): Float32Array {
    return this.buffer.slice(start, end);
  }

  /** Adds audio; returns spans that became final. */
  async push(chunk: Float32Array, signal?: AbortSignal): Promise<SpanAudio[]> {
    this.buffer.append(chunk);
    const pieces = this.pieces(await this.endpointer.advance(this.buffer, signal));
    this.buffer.dropBefore(this.endpointer.openStart ?? this.endpointer.scored - this.keepBehind);
    return pieces;
  }

  /** Ends the stream: scores the last partial window (zero-padded) and closes open speech. */
  async end(signal?: AbortSignal): Promise<SpanAudio[]> {
    return this.pieces(await this.endpointer.finish(this.buffer, true, signal));
  }

  private pieces(changes: readonly TurnChange[]): SpanAudio[] {
    return changes.flatMap((c) =>
      c.type === "end" ? [{ ...c.span, samples: this.buffer.slice(c.span.start, c.span.end) }] : [],
    );
  }
}

/** Speech spans of a whole recording, in order. */
export async function segmentSpeech(
  samples: Float32Array,
  detector: VoiceActivityDetector,
  options: Partial<SegmenterOptions> = {},
  signal?: AbortSignal,
): Promise<SpanAudio[]> {
  const tracker = new SpeechTracker(detector, options);
  const pieces = await tracker.push(samples, signal);
  pieces.push(...(await tracker.end(signal)));
  return pieces;
}
