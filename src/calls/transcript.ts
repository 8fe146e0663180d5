/**
 * A call's stored transcript (issue 41): both sides in time order, as a split-channel recording's
 * transcript is built (src/asr/channels/merge.ts's shape): the caller's finals as the live core
 * gave them (written forms and redaction applied, words timed) on channel 0, speaker `caller`, and
 * what Sawt said into the call on channel 1, speaker `bot`. Times are seconds since the call
 * started. It renders in every transcription format (src/transcripts/formats.ts).
 */
import type { Transcript, TranscriptSegment, TranscriptWord } from "../core/asr.ts";

/** The speaker labels of a call's two sides. */
export const SPEAKERS = { caller: "caller", bot: "bot" } as const;

type Segment = Omit<TranscriptSegment, "id">;

/** Collects a call's two sides; see the file comment. */
export class CallTranscript {
  private readonly segments: Segment[] = [];
  private readonly callerWords: TranscriptWord[] = [];
  private dialect: string | null = null;
  private dialectConfidence: number | undefined;

  /** A caller's final (the live core's, already formatted and redacted). */
  caller(final: {
    readonly text: string;
    readonly start: number;
    readonly end: number;
    readonly dialect: string | null;
    readonly dialectConfidence?: number;
    readonly words?: readonly TranscriptWord[];
  }): void {
    if (final.text.trim() === "") return;
    const label = { channel: 0, speaker: SPEAKERS.caller };
    const words = final.words?.map((word) => ({ ...word, ...label }));
    if (words) this.callerWords.push(...words);
    this.segments.push({ start: final.start, end: final.end, text: final.text, ...label, ...(words ? { words } : {}) });
    if (final.dialect !== null) {
      this.dialect = final.dialect;
      this.dialectConfidence = final.dialectConfidence;
    }
  }

  /** What Sawt said: the text of a prompt (or of its played part's prompt) and when it played. */
  bot(text: string, start: number, end: number): void {
    if (text.trim() === "") return;
    this.segments.push({ start, end: Math.max(start, end), text: text.trim(), channel: 1, speaker: SPEAKERS.bot });
  }

  /** The transcript of the call so far; `duration` in seconds. */
  build(duration: number): Transcript {
    const segments = [...this.segments]
      .sort((a, b) => a.start - b.start || (a.channel ?? 0) - (b.channel ?? 0))
      .map((segment, id) => ({ ...segment, id }));
    const sideText = (channel: number) =>
      segments
        .filter((s) => s.channel === channel)
        .map((s) => s.text)
        .join(" ");
    return {
      text: segments.map((s) => s.text).join(" "),
      language: "ar",
      dialect: this.dialect,
      duration,
      segments,
      ...(this.dialectConfidence !== undefined ? { dialectConfidence: this.dialectConfidence } : {}),
      ...(this.callerWords.length > 0 ? { words: this.callerWords } : {}),
      channels: [
        { channel: 0, speaker: SPEAKERS.caller, text: sideText(0), dialect: this.dialect },
        { channel: 1, speaker: SPEAKERS.bot, text: sideText(1), dialect: null },
      ],
    };
  }
}

/** The words of an SSML document, for the bot's side of the transcript: its text without markup. */
export function ssmlText(ssml: string): string {
  const entities: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
  return ssml
    .replace(/<[^>]*>/g, " ")
    .replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => entities[name] ?? "")
    .replace(/\s+/g, " ")
    .trim();
}
