/**
 * A recording longer than a request's reservation is transcribed piece by piece (each piece one
 * speech span the VAD cut while decoding); this joins the pieces' transcripts into the
 * recording's: segments and words shifted to their times in the recording, texts joined with a
 * space (a piece ends where the tracker heard an utterance end), the call's language, dialect and
 * model the first recognised piece's.
 */
import { roundSeconds } from "../../audio/speech-rate.ts";
import type { Transcript, TranscriptionLanguage } from "../../core/asr.ts";

/** One piece's transcript and where the piece starts in the recording (seconds). */
export interface PieceTranscript {
  readonly transcript: Transcript;
  readonly offset: number;
}

const shift = <T extends { start: number; end: number }>(item: T, by: number): T => ({
  ...item,
  start: roundSeconds(item.start + by),
  end: roundSeconds(item.end + by),
});

/** See the file comment; `language` is the call's when no piece was recognised. */
export function joinPieceTranscripts(
  parts: readonly PieceTranscript[],
  language: TranscriptionLanguage,
  duration: number,
): Transcript {
  const segments = parts.flatMap(({ transcript, offset }) =>
    transcript.segments.map((segment) => ({
      ...shift(segment, offset),
      ...(segment.words ? { words: segment.words.map((w) => shift(w, offset)) } : {}),
    })),
  );
  const first = parts[0]?.transcript;
  const words = parts.flatMap(({ transcript, offset }) => (transcript.words ?? []).map((w) => shift(w, offset)));
  return {
    text: parts.map((p) => p.transcript.text).join(" "),
    language: first?.language ?? language,
    dialect: first?.dialect ?? null,
    duration,
    segments: segments.map((segment, id) => ({ ...segment, id })),
    ...(first?.model !== undefined ? { model: first.model } : {}),
    ...(first?.dialectConfidence !== undefined ? { dialectConfidence: first.dialectConfidence } : {}),
    ...(parts.some((p) => p.transcript.words !== undefined) ? { words } : {}),
  };
}
