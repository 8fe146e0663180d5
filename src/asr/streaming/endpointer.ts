/**
 * Server-side turn detection of a live stream, OpenAI's `server_vad` semantics over Sawt's
 * voice-activity detectors (Silero when a pack is installed, the energy detector otherwise):
 * every {@link VAD_WINDOW}-sample window gets a speech probability; speech starts at the first
 * window at or above `threshold` (the utterance then reaches back `prefixPaddingMs`), and ends
 * once `silenceDurationMs` of windows stayed below the release level (threshold − 0.15, Silero's
 * hysteresis). An utterance that runs past {@link MAX_UTTERANCE_SECONDS} is ended there, so a
 * stream never holds unbounded audio.
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import type { TurnDetection } from "../../core/asr.ts";
import { scoreWindows, VAD_WINDOW, type VadStream } from "../recognizer.ts";

/** Longest utterance before it is ended regardless of the speaker. */
export const MAX_UTTERANCE_SECONDS = 30;
/** How far below `threshold` a window must fall to count as silence. */
const RELEASE_MARGIN = 0.15;

/** What one window changed. */
export type TurnChange =
  | { readonly type: "start"; readonly at: number }
  | { readonly type: "end"; readonly at: number };

const samplesOf = (ms: number) => Math.round((ms * SPEECH_SAMPLE_RATE) / 1000);

/** Turn detection over absolute sample positions; see the file comment. */
export class Endpointer {
  private readonly padding: number;
  private readonly silence: number;
  private readonly release: number;
  /** Start (padded) of the open utterance, or null in silence. */
  private start: number | null = null;
  private quietSince: number | null = null;
  /** No utterance may begin before this (the end of the last one). */
  private floor = 0;

  constructor(
    private readonly vad: VadStream,
    private readonly detection: TurnDetection,
  ) {
    this.padding = samplesOf(detection.prefixPaddingMs);
    this.silence = samplesOf(detection.silenceDurationMs);
    this.release = Math.max(0, detection.threshold - RELEASE_MARGIN);
  }

  /** Padded start of the open utterance, or null. */
  get openStart(): number | null {
    return this.start;
  }

  /** Scores the window `[at, at + VAD_WINDOW)` and returns the turn it started or ended, if any. */
  async score(window: Float32Array, at: number): Promise<TurnChange | null> {
    return this.decide(await this.vad.probability(window), at);
  }

  /**
   * Speech probabilities of successive windows, in one detector call when it batches (Silero: one
   * worker call for every window a pushed chunk completes). The detector's state runs on whatever
   * turns are decided, so scoring ahead of {@link decide} gives the per-window decisions.
   */
  probabilities(windows: readonly Float32Array[]): Promise<number[]> {
    return scoreWindows(this.vad, windows);
  }

  /** The turn the window at `at`, whose speech probability is `p`, started or ended, if any. */
  decide(p: number, at: number): TurnChange | null {
    const end = at + VAD_WINDOW;
    if (this.start === null) {
      if (p < this.detection.threshold) return null;
      this.start = Math.max(this.floor, at - this.padding);
      this.quietSince = null;
      return { type: "start", at: this.start };
    }
    if (p >= this.release) this.quietSince = null;
    else this.quietSince ??= at;
    const quietLongEnough = this.quietSince !== null && end - this.quietSince >= this.silence;
    if (quietLongEnough || end - this.start >= MAX_UTTERANCE_SECONDS * SPEECH_SAMPLE_RATE) return this.close(end);
    return null;
  }

  /** Ends the open utterance at `at` (a client commit, the end of the stream). */
  close(at: number): TurnChange {
    this.start = null;
    this.quietSince = null;
    this.floor = at;
    return { type: "end", at };
  }

  /** Forgets the open utterance without ending it (a client clear). */
  reset(at: number): void {
    this.start = null;
    this.quietSince = null;
    this.floor = at;
  }
}
