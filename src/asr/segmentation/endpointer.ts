/**
 * The segmentation policy for live audio: speech spans arrive one at a time (from a
 * SpeechTracker) and an utterance is final once a pause of `joinPauseSamples` follows it, or
 * when it would outgrow the window. A stream cannot wait for later pauses, so an utterance that
 * outgrows the window is cut at the longest pause seen so far (a file, which sees the whole
 * utterance first, may cut elsewhere); otherwise a stream's utterances are exactly the ones
 * {@link utterances} gives for the whole recording.
 */
import type { SpeechSpan } from "../vad/segmenter.ts";
import { fitWindow, type PolicyOptions, type Utterance } from "./policy.ts";

/** Groups a stream's speech spans into utterances as they arrive. */
export class UtteranceEndpointer {
  private run: SpeechSpan[] = [];

  constructor(private readonly options: PolicyOptions) {}

  /** Start of the utterance in progress (samples), or null when none is open. */
  get openStart(): number | null {
    return this.run[0]?.start ?? null;
  }

  /** Adds the next speech span; returns utterances that became final. */
  push(span: SpeechSpan): Utterance[] {
    const done = this.heard(span.start);
    this.run.push(span);
    const parts = fitWindow(this.run, this.options.windowSamples);
    if (parts.length === 1) return done;
    // Everything before the last part is final; the last part may still grow.
    this.run = [...parts[parts.length - 1]!.spans];
    return [...done, ...parts.slice(0, -1)];
  }

  /** Tells that the audio up to `position` (samples) was heard; returns the utterance a long enough pause ended. */
  heard(position: number): Utterance[] {
    const last = this.run[this.run.length - 1];
    if (last === undefined || position - last.end < this.options.joinPauseSamples) return [];
    return this.finish();
  }

  /** Ends the stream: the utterance in progress, if any. */
  finish(): Utterance[] {
    const run = this.run;
    this.run = [];
    return run.length === 0 ? [] : fitWindow(run, this.options.windowSamples);
  }
}
