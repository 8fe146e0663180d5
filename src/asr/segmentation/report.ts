/**
 * What verbose_json reports for one decoded piece. A piece decoded whole may hold several
 * utterances; when the recogniser timed its words, the piece is split back into them (a word that
 * straddles a pause keeps its utterances together), so segments and subtitles follow the speech
 * and a stream's finals (one per utterance) match a file's segments. Without word times, or when
 * the words do not spell the text, the piece is one segment over its speech.
 */
import { roundSeconds, secondsOf, SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import type { RecognizedText } from "../recognizer.ts";
import type { TranscriptWord } from "../types.ts";
import type { DecodePiece, Utterance } from "./policy.ts";

/** A reported segment before it is numbered: times in samples, words in seconds from the audio start. */
export interface PieceSegment {
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly words?: readonly TranscriptWord[];
  readonly utterances: readonly Utterance[];
}

const squash = (text: string) => text.trim().replace(/\s+/g, " ");

/** Words moved to absolute seconds, clamped into `[start, end]` samples and kept monotonic. */
function placeWords(piece: DecodePiece, result: RecognizedText, start: number, end: number): TranscriptWord[] {
  const offset = piece.start / SPEECH_SAMPLE_RATE;
  const lo = secondsOf(start);
  const hi = secondsOf(end);
  const out: TranscriptWord[] = [];
  let floor = lo;
  for (const w of result.words ?? []) {
    const wordStart = Math.min(hi, Math.max(floor, roundSeconds(offset + w.start)));
    const wordEnd = Math.min(hi, Math.max(wordStart, roundSeconds(offset + w.end)));
    out.push({ word: w.word, start: wordStart, end: wordEnd });
    floor = wordStart;
  }
  return out;
}

/** Index range of the utterances a word (absolute samples) overlaps, or the nearest one. */
function overlapped(utterances: readonly Utterance[], start: number, end: number): [number, number] {
  let lo = -1;
  let hi = -1;
  for (const [i, u] of utterances.entries()) {
    if (u.end > start && u.start < end) {
      if (lo < 0) lo = i;
      hi = i;
    }
  }
  if (lo >= 0) return [lo, hi];
  let nearest = 0;
  let distance = Infinity;
  for (const [i, u] of utterances.entries()) {
    const d = Math.max(u.start - end, start - u.end);
    if (d < distance) [nearest, distance] = [i, d];
  }
  return [nearest, nearest];
}

/** The piece as one segment over its speech. */
function wholePiece(piece: DecodePiece, result: RecognizedText): PieceSegment {
  const start = piece.utterances[0]?.start ?? piece.start;
  const end = piece.utterances[piece.utterances.length - 1]?.end ?? piece.end;
  const words = result.words ? { words: placeWords(piece, result, start, end) } : {};
  return { start, end, text: result.text.trim(), ...words, utterances: piece.utterances };
}

/**
 * The decoder's own timed segments (Whisper timestamp tokens), moved into the recording and
 * clamped into the piece; each keeps the utterances it overlaps.
 */
function decoderSegments(piece: DecodePiece, result: RecognizedText): PieceSegment[] {
  return (result.segments ?? []).map((segment) => {
    const clamp = (seconds: number) =>
      Math.min(piece.end, Math.max(piece.start, piece.start + Math.round(seconds * SPEECH_SAMPLE_RATE)));
    const start = clamp(segment.start);
    const end = Math.max(start, clamp(segment.end));
    const [lo, hi] = overlapped(piece.utterances, start, end);
    return { start, end, text: squash(segment.text), utterances: piece.utterances.slice(lo, hi + 1) };
  });
}

/** The segments one recognised piece reports (none when it heard nothing). */
export function reportPiece(piece: DecodePiece, result: RecognizedText): PieceSegment[] {
  if (result.text.trim() === "") return [];
  if ((result.segments?.length ?? 0) > 0 && result.words === undefined) return decoderSegments(piece, result);
  const words = result.words ?? [];
  const spelled = squash(words.map((w) => w.word).join(" ")) === squash(result.text);
  if (piece.utterances.length < 2 || words.length === 0 || !spelled) return [wholePiece(piece, result)];
  const clusters: { lo: number; hi: number; words: (typeof words)[number][] }[] = [];
  for (const word of words) {
    const start = piece.start + Math.round(word.start * SPEECH_SAMPLE_RATE);
    const end = piece.start + Math.round(word.end * SPEECH_SAMPLE_RATE);
    const [lo, hi] = overlapped(piece.utterances, start, end);
    const last = clusters[clusters.length - 1];
    if (last !== undefined && lo <= last.hi) {
      last.hi = Math.max(last.hi, hi);
      last.words.push(word);
    } else clusters.push({ lo, hi, words: [word] });
  }
  return clusters.map((cluster) => {
    const utterances = piece.utterances.slice(cluster.lo, cluster.hi + 1);
    const start = utterances[0]!.start;
    const end = utterances[utterances.length - 1]!.end;
    const part = { ...result, words: cluster.words };
    return {
      start,
      end,
      text: cluster.words.map((w) => w.word).join(" "),
      words: placeWords(piece, part, start, end),
      utterances,
    };
  });
}
