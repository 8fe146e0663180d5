/**
 * Renders a {@link Transcript} in the response formats of D14: json, text, verbose_json, srt and
 * vtt, and OpenAI's diarized_json (issue #27). Transport-free, so REST and the CLI render alike.
 * Subtitle cues come from the transcript's segments; a transcript without segments becomes one cue
 * over the whole audio. Segments of split channels carry their speaker: `agent: …` in SRT, a
 * `<v agent>` voice span in VTT, `speaker`/`channel` in the JSON bodies.
 */
import type { Transcript, TranscriptFormat, TranscriptSegment, TranscriptWord } from "../core/asr.ts";
import { speakerOf } from "./labels.ts";
import type { DiarizedTranscriptionJson, TranscriptionJson, VerboseTranscriptionJson } from "./response-schema.ts";

/** A rendered transcript. */
export interface RenderedTranscript {
  readonly body: string;
  readonly contentType: string;
}

/** `HH:MM:SS<sep>mmm` for a time in seconds (hours grow past 99 when they must). */
export function subtitleTime(seconds: number, separator: "," | "."): string {
  const totalMs = Math.max(0, Math.round((Number.isFinite(seconds) ? seconds : 0) * 1000));
  const ms = totalMs % 1000;
  const s = Math.floor(totalMs / 1000) % 60;
  const m = Math.floor(totalMs / 60_000) % 60;
  const h = Math.floor(totalMs / 3_600_000);
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(ms, 3)}`;
}

/** Cue text: no blank lines (they end a cue), no surrounding whitespace. */
function cueText(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .join("\n");
}

function cues(transcript: Transcript): readonly TranscriptSegment[] {
  const segments =
    transcript.segments.length > 0
      ? transcript.segments
      : [{ id: 0, start: 0, end: transcript.duration, text: transcript.text }];
  return segments.filter((segment) => cueText(segment.text).length > 0);
}

/** SubRip: numbered cues, `00:00:01,500 --> 00:00:03,000`, blank line between cues. */
export function renderSrt(transcript: Transcript): string {
  return cues(transcript)
    .map(
      (cue, index) =>
        `${index + 1}\n${subtitleTime(cue.start, ",")} --> ${subtitleTime(Math.max(cue.start, cue.end), ",")}\n${cue.speaker !== undefined ? `${cue.speaker}: ` : ""}${cueText(cue.text)}\n`,
    )
    .join("\n");
}

/** WebVTT: `WEBVTT` header, `00:00:01.500 --> 00:00:03.000` cues; `&`, `<`, `>` escaped as the format requires. */
export function renderVtt(transcript: Transcript): string {
  const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const body = cues(transcript)
    .map(
      (cue) =>
        `${subtitleTime(cue.start, ".")} --> ${subtitleTime(Math.max(cue.start, cue.end), ".")}\n${cue.speaker !== undefined ? `<v ${cue.speaker}>` : ""}${escape(cueText(cue.text))}\n`,
    )
    .join("\n");
  return body.length > 0 ? `WEBVTT\n\n${body}` : "WEBVTT\n";
}

/**
 * The json body of D14: `{text, language, dialect, duration}`, plus the extension
 * `dialect_confidence` when a dialect was detected; typed by its schema (./schema.ts), which the
 * API docs show.
 */
export function transcriptJson(transcript: Transcript): TranscriptionJson {
  return {
    text: transcript.text,
    language: transcript.language,
    dialect: transcript.dialect,
    duration: transcript.duration,
    ...(transcript.dialectConfidence !== undefined ? { dialect_confidence: transcript.dialectConfidence } : {}),
  };
}

/** A split channel's label as JSON fields (none for a mono transcript). */
const label = (item: TranscriptWord | TranscriptSegment) => ({
  ...(item.channel !== undefined ? { channel: item.channel } : {}),
  ...(item.speaker !== undefined ? { speaker: item.speaker } : {}),
});

const timedWord = (w: TranscriptWord) => ({ word: w.word, start: w.start, end: w.end, ...label(w) });

/** A segment as OpenAI's verbose_json names it, with Sawt's extensions (words, dialect). */
function verboseSegment(segment: TranscriptSegment): NonNullable<VerboseTranscriptionJson["segments"]>[number] {
  return {
    id: segment.id,
    // Whisper's seek is the window's offset in 10 ms mel frames.
    seek: Math.round(segment.start * 100),
    start: segment.start,
    end: segment.end,
    text: segment.text,
    ...(segment.textSpoken !== undefined ? { text_spoken: segment.textSpoken } : {}),
    ...(segment.temperature !== undefined ? { temperature: segment.temperature } : {}),
    ...(segment.avgLogprob !== undefined ? { avg_logprob: segment.avgLogprob } : {}),
    ...(segment.compressionRatio !== undefined ? { compression_ratio: segment.compressionRatio } : {}),
    ...(segment.dialect !== undefined ? { dialect: segment.dialect } : {}),
    ...label(segment),
    ...(segment.words ? { words: segment.words.map(timedWord) } : {}),
  };
}

/**
 * The verbose_json body: json plus `task`, the answering pack as `model`, `segments` (with their
 * words, when the model timed them) unless only `word` granularity was asked for, and the
 * call's `words` when `word` granularity was asked for (empty when the recogniser cannot time words).
 */
export function transcriptVerboseJson(
  transcript: Transcript,
  granularities: readonly string[] = ["segment"],
): VerboseTranscriptionJson {
  const words = granularities.includes("word");
  const segments = granularities.includes("segment") || !words;
  return {
    task: "transcribe",
    ...transcriptJson(transcript),
    ...(transcript.textSpoken !== undefined ? { text_spoken: transcript.textSpoken } : {}),
    ...(transcript.redactions !== undefined ? { redactions: transcript.redactions.map((r) => ({ ...r })) } : {}),
    ...(transcript.model !== undefined ? { model: transcript.model } : {}),
    ...(segments ? { segments: transcript.segments.map(verboseSegment) } : {}),
    ...(words ? { words: (transcript.words ?? []).map(timedWord) } : {}),
    ...(transcript.channels ? { channels: transcript.channels.map(channelJson) } : {}),
  };
}

/** A split channel's own facts as verbose_json `channels` items. */
function channelJson(channel: NonNullable<Transcript["channels"]>[number]) {
  return {
    channel: channel.channel,
    speaker: channel.speaker,
    text: channel.text,
    dialect: channel.dialect,
    ...(channel.dialectConfidence !== undefined ? { dialect_confidence: channel.dialectConfidence } : {}),
    ...(channel.model !== undefined ? { model: channel.model } : {}),
  };
}

/**
 * OpenAI's diarized_json body: `task`, `duration`, `text`, and `segments` of type
 * `transcript.text.segment` with a string `id`, `start`, `end`, `text` and `speaker`, plus
 * `usage` by duration. Speakers are channels: a split transcript's labels, and for a mono one
 * (Sawt does not diarize one channel) the first label (`speakers[0]`, else `ch0`) on every
 * segment. Extension: `channel` on each segment.
 */
export function transcriptDiarizedJson(
  transcript: Transcript,
  speakers: readonly string[] = [],
): DiarizedTranscriptionJson {
  return {
    task: "transcribe",
    duration: transcript.duration,
    text: transcript.text,
    segments: transcript.segments.map((segment) => ({
      type: "transcript.text.segment",
      id: `seg_${segment.id}`,
      start: segment.start,
      end: segment.end,
      text: segment.text,
      speaker: segment.speaker ?? speakerOf(segment.channel ?? 0, speakers),
      channel: segment.channel ?? 0,
    })),
    usage: { type: "duration", seconds: transcript.duration },
  };
}

/** What a rendering may be asked beyond its format. */
export interface RenderOptions {
  /** verbose_json timestamp granularities (`segment`, `word`); default segment. */
  readonly granularities?: readonly string[];
  /** diarized_json speaker labels by channel, for a transcript whose channels were not split. */
  readonly speakers?: readonly string[];
}

/** Renders `transcript` in `format`. */
export function renderTranscript(
  transcript: Transcript,
  format: TranscriptFormat,
  options: RenderOptions = {},
): RenderedTranscript {
  switch (format) {
    case "json":
      return { body: JSON.stringify(transcriptJson(transcript)), contentType: "application/json" };
    case "verbose_json":
      return {
        body: JSON.stringify(transcriptVerboseJson(transcript, options.granularities)),
        contentType: "application/json",
      };
    case "text":
      return { body: `${transcript.text}\n`, contentType: "text/plain; charset=utf-8" };
    case "srt":
      return { body: renderSrt(transcript), contentType: "application/x-subrip; charset=utf-8" };
    case "vtt":
      return { body: renderVtt(transcript), contentType: "text/vtt; charset=utf-8" };
    case "diarized_json":
      return {
        body: JSON.stringify(transcriptDiarizedJson(transcript, options.speakers)),
        contentType: "application/json",
      };
  }
}
