/**
 * ElevenLabs' alignment (`chars`, `charStartTimesMs`, `charDurationsMs`) from a sentence's timings
 * (src/tts/stream/timings.ts). Times are whole milliseconds of the context's audio, counted from
 * its first sample, so they rise across the whole context (LiveKit's plugin adds them up that way;
 * ElevenLabs' reference calls them chunk-relative). A sentence after the first begins with a space
 * covering the pause before it, so words never run together across sentences. Sawt's `alignment`
 * and `normalizedAlignment` are the same: the text as spoken (numbers read out).
 */
import type { SentenceTimings } from "../../core/tts.ts";

/** One alignment object. */
export interface Alignment {
  readonly chars: string[];
  readonly charStartTimesMs: number[];
  readonly charDurationsMs: number[];
}

/** Builds a context's alignments sentence by sentence; see the file comment. */
export class AlignmentWriter {
  /** Where the last sentence's audio ended (ms); undefined before the first. */
  private lastEnd: number | undefined;

  /** The alignment of the next sentence. */
  next(timings: SentenceTimings): Alignment {
    const chars = [...timings.chars];
    const starts = [...timings.charStartMs];
    const last = timings.chars.length - 1;
    const end = (timings.charStartMs[last] ?? 0) + (timings.charDurationMs[last] ?? 0);
    if (this.lastEnd !== undefined && chars.length > 0) {
      chars.unshift(" ");
      starts.unshift(Math.min(this.lastEnd, starts[0]!));
    }
    this.lastEnd = end;
    // Whole milliseconds: each character runs from its start to the next one's, the last to the end.
    const bounds = [...starts, end].map((ms) => Math.round(ms));
    for (let i = 1; i < bounds.length; i++)
      bounds[i] = Math.max(bounds[i]!, bounds[i - 1]! + (i < chars.length ? 1 : 0));
    return {
      chars,
      charStartTimesMs: bounds.slice(0, -1),
      charDurationsMs: bounds.slice(1).map((b, i) => b - bounds[i]!),
    };
  }
}
