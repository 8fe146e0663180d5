/**
 * Written forms and redaction of a finished transcript, the one place every file door (REST in
 * each response format, `stream=true`'s done event, gRPC Recognize, jobs) gets them from: the
 * ASR service applies it when a call asks for `formatting`. Each channel's segments are read as
 * one run of words (a card number split over two segments is one card; the agent's digits never
 * join the customer's); segment texts, segment and call words, channel texts and the call's text
 * become the written forms, `textSpoken` keeps the spoken words (redacted too), and `redactions`
 * gives each hidden span's type and the times of its words.
 */
import type { TimedRedaction, Transcript, TranscriptFormatting, TranscriptSegment } from "../../core/asr.ts";
import { formats, formatRuns, type FormattedRun, type TimedUnit, unitsOf } from "./units.ts";

const joinTexts = (texts: readonly string[]) => texts.filter((t) => t.length > 0).join(" ");

const byTime = (a: TimedRedaction, b: TimedRedaction) => a.start - b.start || (a.channel ?? 0) - (b.channel ?? 0);

/** Formats each channel's segments as one run of words; the runs by segment index. */
function formatSegments(
  segments: readonly TranscriptSegment[],
  formatting: TranscriptFormatting,
): Map<number, FormattedRun> {
  const channels = new Map<number, number[]>();
  for (const [i, segment] of segments.entries()) {
    const channel = segment.channel ?? 0;
    channels.set(channel, [...(channels.get(channel) ?? []), i]);
  }
  const runs = new Map<number, FormattedRun>();
  for (const indices of channels.values()) {
    const units: TimedUnit[] = indices.flatMap((i) => unitsOf(segments[i]!.text, segments[i]!.words, segments[i]!, i));
    for (const [i, run] of formatRuns(units, formatting, indices)) runs.set(i, run);
  }
  return runs;
}

/** The transcript with written forms and redaction applied (unchanged when `formatting` asks for neither). */
export function formatTranscript(transcript: Transcript, formatting: TranscriptFormatting | undefined): Transcript {
  if (!formats(formatting)) return transcript;
  if (transcript.segments.length === 0 && transcript.text.trim() !== "") {
    // No segment to read the words from (none in practice): the text alone, as one segment.
    const whole = { id: 0, start: 0, end: transcript.duration, text: transcript.text };
    const { segments: _, ...rest } = formatTranscript({ ...transcript, segments: [whole] }, formatting);
    return { ...rest, segments: [] };
  }
  const runs = formatSegments(transcript.segments, formatting);
  const segments = transcript.segments.map((segment, i): TranscriptSegment => {
    const run = runs.get(i)!;
    const label = { ...(segment.channel !== undefined ? { channel: segment.channel, speaker: segment.speaker } : {}) };
    return {
      ...segment,
      text: run.text,
      textSpoken: run.textSpoken,
      ...(segment.words ? { words: run.words.map((w) => ({ ...w, ...label })) } : {}),
    };
  });
  const redactions: TimedRedaction[] = [];
  for (const [i, run] of runs) {
    const { channel, speaker } = transcript.segments[i]!;
    for (const r of run.redactions) redactions.push({ ...r, ...(channel !== undefined ? { channel, speaker } : {}) });
  }
  redactions.sort(byTime);
  for (const r of redactions) formatting.onRedaction?.(r.type);
  // The call's words are its segments' words (every timed word is in a segment), formatted once.
  const words = transcript.words
    ? segments.flatMap((s, i) => (s.words ?? runs.get(i)!.words).map((w) => ({ ...w })))
    : undefined;
  const channelText = (channel: number, pick: (s: TranscriptSegment) => string | undefined) =>
    joinTexts(segments.filter((s) => (s.channel ?? 0) === channel).map((s) => pick(s) ?? ""));
  return {
    ...transcript,
    text: joinTexts(segments.map((s) => s.text)),
    textSpoken: joinTexts(segments.map((s) => s.textSpoken ?? "")),
    segments,
    ...(words ? { words } : {}),
    ...(transcript.channels
      ? { channels: transcript.channels.map((c) => ({ ...c, text: channelText(c.channel, (s) => s.text) })) }
      : {}),
    ...(formatting.redact.size > 0 ? { redactions } : {}),
  };
}
