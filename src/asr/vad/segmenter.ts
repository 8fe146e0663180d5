/**
 * Turns per-window speech probabilities into speech spans, window by window, so the same code
 * serves a whole file and a live stream (a span is final as soon as it is returned; nothing later
 * changes it). Hysteresis as in Silero's reference segmentation: speech starts at `threshold`,
 * ends after `minSilenceMs` below `negThreshold`; spans shorter than `minSpeechMs` are dropped;
 * each span is padded by `speechPadMs` without overlapping the previous one.
 *
 * Long speech is cut so that every padded span fits the recogniser's window: when speech runs on,
 * the span is cut at the least speech-like window seen since it started (a breath or a pause too
 * short to end it), and the rest continues as a new span with no gap.
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";

/** Segmentation parameters; defaults are Silero's reference values. */
export interface SegmenterOptions {
  readonly threshold: number;
  readonly negThreshold: number;
  readonly minSpeechMs: number;
  readonly minSilenceMs: number;
  readonly speechPadMs: number;
  /** Longest padded span. */
  readonly maxSegmentSeconds: number;
  /** Samples per probability window. */
  readonly window: number;
  readonly sampleRate: number;
  /**
   * What a span keeps after its speech when silence ends it: `pad` (the file rule: `speechPadMs`)
   * or `silence` (turn detection, OpenAI's server VAD: the whole silence that ended the turn, up
   * to the window that decided it).
   */
  readonly trailing: "pad" | "silence";
}

/** Silero's reference parameters with 30 s spans at 16 kHz. */
export const DEFAULT_SEGMENTER_OPTIONS: SegmenterOptions = Object.freeze({
  threshold: 0.5,
  negThreshold: 0.35,
  minSpeechMs: 250,
  minSilenceMs: 100,
  speechPadMs: 30,
  maxSegmentSeconds: 30,
  window: 512,
  sampleRate: SPEECH_SAMPLE_RATE,
  trailing: "pad",
});

/** A span of speech in samples, `[start, end)`. */
export interface SpeechSpan {
  readonly start: number;
  readonly end: number;
}

interface Scored {
  readonly pos: number;
  readonly p: number;
}

/** Incremental speech segmenter; feed {@link push} one probability per window, then {@link finish}. */
export class SpeechSegmenter {
  private readonly o: SegmenterOptions;
  private readonly minSpeech: number;
  private readonly minSilence: number;
  private readonly pad: number;
  private readonly maxSpeech: number;
  /** Position of the next window (windows are contiguous except after {@link close} or {@link reset}). */
  private next = 0;
  private triggered = false;
  private start = 0;
  private tempEnd: number | null = null;
  private history: Scored[] = [];
  private lastEnd = 0;

  constructor(options: Partial<SegmenterOptions> = {}) {
    this.o = { ...DEFAULT_SEGMENTER_OPTIONS, ...options };
    const perMs = this.o.sampleRate / 1000;
    this.minSpeech = Math.round(this.o.minSpeechMs * perMs);
    this.minSilence = Math.round(this.o.minSilenceMs * perMs);
    this.pad = Math.round(this.o.speechPadMs * perMs);
    // Room for both pads and the window a cut decision lags by.
    this.maxSpeech = Math.round(this.o.maxSegmentSeconds * this.o.sampleRate) - 2 * this.pad - this.o.window;
    if (this.maxSpeech <= this.minSpeech)
      throw new RangeError("maxSegmentSeconds is too short for the padding and minimum speech");
  }

  /** Samples covered by the windows pushed so far. */
  get position(): number {
    return this.next;
  }

  /** Padded start of the speech in progress, or null in silence. */
  get activeStart(): number | null {
    return this.triggered ? Math.max(this.lastEnd, this.start - this.pad) : null;
  }

  /**
   * No span returned later starts before this sample: the padded start of the speech in progress,
   * else the next window's position less the pad (and never before the last span's end).
   */
  get nextStartFloor(): number {
    return this.activeStart ?? Math.max(this.lastEnd, this.position - this.pad);
  }

  /** Consumes the next window's probability; returns spans that became final. */
  push(probability: number): SpeechSpan[] {
    const pos = this.next;
    this.next += this.o.window;
    if (!this.triggered) {
      if (probability < this.o.threshold) return [];
      this.triggered = true;
      this.start = pos;
      this.tempEnd = null;
      this.history = [];
    }
    this.history.push({ pos, p: probability });
    if (probability >= this.o.threshold) this.tempEnd = null;
    else if (probability < this.o.negThreshold) {
      this.tempEnd ??= pos;
      if (pos + this.o.window - this.tempEnd >= this.minSilence) return this.end(this.tempEnd, pos + this.o.window);
    }
    if (pos + this.o.window - this.start > this.maxSpeech) return this.cut();
    return [];
  }

  /** Ends the audio at `totalSamples`; returns the last span, if any. */
  finish(totalSamples: number): SpeechSpan[] {
    if (!this.triggered) return [];
    if (this.o.trailing === "silence") return this.end(totalSamples, totalSamples);
    return this.end(Math.min(this.tempEnd ?? totalSamples, totalSamples), totalSamples);
  }

  /**
   * Ends the speech in progress at `at` (a client commit): its span ends there, the next window is
   * read from `at`, and no later span starts before it. Returns the span, if speech was open.
   */
  close(at: number): SpeechSpan[] {
    const spans = this.triggered ? this.end(at, at) : [];
    this.reset(at);
    return spans;
  }

  /** Forgets the speech in progress without a span (a client clear); the next window is read from `at`. */
  reset(at: number): void {
    this.triggered = false;
    this.tempEnd = null;
    this.history = [];
    this.lastEnd = Math.max(this.lastEnd, at);
    this.next = Math.max(this.next, at);
  }

  private end(end: number, limit: number): SpeechSpan[] {
    this.triggered = false;
    this.tempEnd = null;
    this.history = [];
    if (end - this.start < this.minSpeech) return [];
    const trail = this.o.trailing === "silence" ? limit : end + this.pad;
    const span = { start: Math.max(this.lastEnd, this.start - this.pad), end: Math.min(limit, trail) };
    this.lastEnd = span.end;
    return [span];
  }

  private cut(): SpeechSpan[] {
    let at: Scored | undefined;
    for (const w of this.history) {
      if (w.pos < this.start + this.minSpeech) continue;
      if (at === undefined || w.p <= at.p) at = w;
    }
    // maxSpeech > minSpeech guarantees a candidate; the fallback only keeps types honest.
    const cutAt = at?.pos ?? this.next;
    const span = { start: Math.max(this.lastEnd, this.start - this.pad), end: cutAt };
    this.lastEnd = cutAt;
    this.start = cutAt;
    this.history = this.history.filter((w) => w.pos >= cutAt);
    if (this.tempEnd !== null) this.tempEnd = Math.max(this.tempEnd, cutAt);
    return [span];
  }
}
