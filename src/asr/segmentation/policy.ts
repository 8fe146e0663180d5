/**
 * The one segmentation policy of a whole recording, whatever detector scored it (Silero when a
 * pack is installed, the energy splitter otherwise):
 *
 * 1. The detector's speech spans (src/asr/vad/segmenter.ts) are grouped into utterances: spans
 *    separated by a pause shorter than `joinPauseSeconds` belong together (a letter-by-letter
 *    spelling, a breath inside a phrase), so a word is never cut at its own short pauses.
 * 2. An utterance longer than the recogniser's window is cut at its longest silences, recursively,
 *    until every part fits (a single span always fits: the segmenter cuts continuous speech).
 * 3. Audio no longer than the window is decoded whole, as one piece holding every utterance;
 *    longer audio is decoded utterance by utterance. Nothing between two pieces is speech.
 *
 * Utterances are also what verbose_json reports as segments: a piece decoded whole is split back
 * into its utterances by the recogniser's word times (see ./report.ts).
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import type { SpeechSpan } from "../vad/segmenter.ts";

/** Pause (seconds) below which neighbouring speech spans stay in one utterance. */
export const DEFAULT_JOIN_PAUSE_SECONDS = 0.5;

/** Window (seconds) of a recogniser that does not declare one (Whisper's 30 s). */
export const DEFAULT_WINDOW_SECONDS = 30;

/** Speech spans heard as one utterance, `[start, end)` in samples. */
export interface Utterance extends SpeechSpan {
  readonly spans: readonly SpeechSpan[];
}

/** Audio given to the recogniser in one call, with the utterances it holds. */
export interface DecodePiece extends SpeechSpan {
  readonly utterances: readonly Utterance[];
}

/** Policy parameters, in samples. */
export interface PolicyOptions {
  /** Longest piece the recogniser takes. */
  readonly windowSamples: number;
  /** Pauses shorter than this join spans into one utterance. */
  readonly joinPauseSamples: number;
}

/** The policy's options for a window and a join pause given in seconds. */
export function policyOptions(windowSeconds: number, joinPauseSeconds = DEFAULT_JOIN_PAUSE_SECONDS): PolicyOptions {
  return {
    windowSamples: Math.round(windowSeconds * SPEECH_SAMPLE_RATE),
    joinPauseSamples: Math.round(joinPauseSeconds * SPEECH_SAMPLE_RATE),
  };
}

const utterance = (spans: readonly SpeechSpan[]): Utterance => ({
  start: spans[0]!.start,
  end: spans[spans.length - 1]!.end,
  spans,
});

/** Splits `spans` (one utterance) at its longest pauses until every part fits `window` samples. */
export function fitWindow(spans: readonly SpeechSpan[], window: number): Utterance[] {
  if (spans.length === 0) return [];
  if (spans.length === 1 || spans[spans.length - 1]!.end - spans[0]!.start <= window) return [utterance(spans)];
  let cut = 1;
  for (let i = 2; i < spans.length; i++) {
    // Ties go to the later pause, so the first part is as long as the window allows.
    if (spans[i]!.start - spans[i - 1]!.end >= spans[cut]!.start - spans[cut - 1]!.end) cut = i;
  }
  return [...fitWindow(spans.slice(0, cut), window), ...fitWindow(spans.slice(cut), window)];
}

/** Ordered speech spans split into runs wherever a pause of at least `joinPause` samples separates them. */
export function speechRuns(spans: readonly SpeechSpan[], joinPause: number): SpeechSpan[][] {
  const runs: SpeechSpan[][] = [];
  for (const span of spans) {
    const run = runs[runs.length - 1];
    const last = run?.[run.length - 1];
    if (run === undefined || last === undefined || span.start - last.end >= joinPause) runs.push([span]);
    else run.push(span);
  }
  return runs;
}

/** Groups ordered speech spans into utterances no longer than the window. */
export function utterances(spans: readonly SpeechSpan[], options: PolicyOptions): Utterance[] {
  return speechRuns(spans, options.joinPauseSamples).flatMap((run) => fitWindow(run, options.windowSamples));
}

/**
 * What the recogniser is given for a recording of `totalSamples` with these speech spans: nothing
 * without speech, the whole audio when it fits the window, else one piece per utterance.
 */
export function decodePieces(
  spans: readonly SpeechSpan[],
  totalSamples: number,
  options: PolicyOptions,
): DecodePiece[] {
  const groups = utterances(spans, options);
  if (groups.length === 0) return [];
  if (totalSamples <= options.windowSamples) return [{ start: 0, end: totalSamples, utterances: groups }];
  return groups.map((group) => ({ start: group.start, end: group.end, utterances: [group] }));
}

/**
 * {@link decodePieces} of a recording longer than the window (one piece per utterance), handed out
 * while its speech spans still arrive: a run of spans is settled, and its pieces final, once no
 * later span can start within a join pause of its end (the detector tells how early a later span
 * may start). The pieces and their order are those of decodePieces over all the spans.
 */
export class UtterancePieces {
  private pending: SpeechSpan[] = [];

  constructor(private readonly options: PolicyOptions) {}

  /** Adds spans that became final; `floor` is where the earliest later span may start. */
  add(spans: readonly SpeechSpan[], floor: number): DecodePiece[] {
    this.pending.push(...spans);
    const runs = speechRuns(this.pending, this.options.joinPauseSamples);
    const last = runs[runs.length - 1];
    const open = last !== undefined && floor - last[last.length - 1]!.end < this.options.joinPauseSamples;
    this.pending = open ? last : [];
    return (open ? runs.slice(0, -1) : runs).flatMap((run) => this.pieces(run));
  }

  /** The spans ended: the pieces still held. */
  finish(): DecodePiece[] {
    const runs = speechRuns(this.pending, this.options.joinPauseSamples);
    this.pending = [];
    return runs.flatMap((run) => this.pieces(run));
  }

  private pieces(run: readonly SpeechSpan[]): DecodePiece[] {
    return fitWindow(run, this.options.windowSamples).map((group) => ({
      start: group.start,
      end: group.end,
      utterances: [group],
    }));
  }
}
