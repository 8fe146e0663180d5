/**
 * One transcript from the transcripts of a recording's channels, each transcribed apart: every
 * segment and word labelled with its channel and speaker, segments and words merged in time order
 * (a tie goes to the lower channel), segment ids renumbered. The merged `text` is the segments'
 * texts in that order; each channel's own text, dialect and pack stay in `channels`, and the
 * top-level dialect is the first channel's that has one (the agent and the caller may differ).
 */
import type { ChannelTranscript, Transcript, TranscriptSegment, TranscriptWord } from "../types.ts";

/** One channel's transcript and its label. */
export interface LabelledTranscript {
  readonly channel: number;
  readonly speaker: string;
  readonly transcript: Transcript;
}

const byTime = <T extends { start: number; end: number; channel?: number }>(a: T, b: T) =>
  a.start - b.start || (a.channel ?? 0) - (b.channel ?? 0) || a.end - b.end;

/** Labels a word or segment with its channel and speaker. */
function labelled<T extends TranscriptWord | TranscriptSegment>(item: T, channel: number, speaker: string): T {
  return { ...item, channel, speaker };
}

/** The channel's facts kept beside the merged transcript. */
function channelFacts({ channel, speaker, transcript }: LabelledTranscript): ChannelTranscript {
  return {
    channel,
    speaker,
    text: transcript.text,
    dialect: transcript.dialect,
    ...(transcript.dialectConfidence !== undefined ? { dialectConfidence: transcript.dialectConfidence } : {}),
    ...(transcript.model !== undefined ? { model: transcript.model } : {}),
  };
}

/** See the file comment. `parts` are in channel order. */
export function mergeChannels(parts: readonly LabelledTranscript[]): Transcript {
  const segments = parts
    .flatMap(({ channel, speaker, transcript }) =>
      transcript.segments.map((segment) => ({
        ...labelled(segment, channel, speaker),
        ...(segment.words ? { words: segment.words.map((w) => labelled(w, channel, speaker)) } : {}),
      })),
    )
    .sort(byTime)
    .map((segment, id) => ({ ...segment, id }));
  const timed = parts.some((p) => p.transcript.words !== undefined);
  const words = parts
    .flatMap(({ channel, speaker, transcript }) => (transcript.words ?? []).map((w) => labelled(w, channel, speaker)))
    .sort(byTime);
  const spoken = parts.find((p) => p.transcript.dialect !== null)?.transcript;
  const model = parts.find((p) => p.transcript.model !== undefined)?.transcript.model;
  return {
    text: segments
      .map((s) => s.text.trim())
      .filter((text) => text.length > 0)
      .join(" "),
    language: "ar",
    dialect: spoken?.dialect ?? null,
    duration: Math.max(0, ...parts.map((p) => p.transcript.duration)),
    segments,
    ...(model !== undefined ? { model } : {}),
    ...(spoken?.dialectConfidence !== undefined ? { dialectConfidence: spoken.dialectConfidence } : {}),
    ...(timed ? { words } : {}),
    channels: parts.map(channelFacts),
  };
}
