/**
 * How the texts of successive decode pieces become one transcript without inventing word breaks.
 *
 * Rule: two pieces are joined with one space, unless the recogniser says the second piece's first
 * token continues a word (`continuesWord`); then they are concatenated. Only a vocabulary that
 * marks word starts can say so:
 * - word-piece models (SentencePiece `▁word` pieces, as NeMo BPE and Moonshine use): a first
 *   piece without `▁` is the inside of a word, so it continues the previous piece's last word;
 * - character models whose word delimiter is a token of its own (`▁`, `|`, a space): a piece
 *   starting after silence carries no delimiter whether or not a word was cut, so they cannot
 *   tell and the break stays (a cut is made at the longest silence, which is a word boundary far
 *   more often than not);
 * - Whisper's byte-level BPE marks word starts with a leading space, but its first token after the
 *   prompt is unreliable on that, so Whisper never claims a continuation.
 * Pieces end at silences, so a continuation is rare: it happens when an utterance longer than the
 * window is cut inside a word spoken with pauses.
 */
import type { TranscriptWord } from "../types.ts";

/** One decoded piece's text as the joiner sees it. */
export interface JoinablePiece {
  readonly text: string;
  readonly continuesWord?: boolean;
}

/** The transcript text of pieces in order; empty pieces are skipped. */
export function joinPieceTexts(pieces: readonly JoinablePiece[]): string {
  let out = "";
  for (const piece of pieces) {
    const text = piece.text.trim();
    if (text === "") continue;
    out = out === "" ? text : piece.continuesWord ? out + text : `${out} ${text}`;
  }
  return out;
}

/**
 * Appends a piece's timed words to the words so far; a continuing piece's first word is the rest
 * of the previous last word, so the two become one word spanning both.
 */
export function appendWords(words: TranscriptWord[], next: readonly TranscriptWord[], continuesWord: boolean): void {
  const last = words[words.length - 1];
  const [first, ...rest] = next;
  if (continuesWord && last !== undefined && first !== undefined) {
    words[words.length - 1] = { word: last.word + first.word, start: last.start, end: Math.max(last.end, first.end) };
    words.push(...rest);
    return;
  }
  words.push(...next);
}

/**
 * Whether a SentencePiece-style vocabulary marks word starts on its pieces (some piece is `▁`
 * followed by text), so a first piece without the mark continues a word.
 */
export function marksWordStarts(vocabulary: readonly string[], mark = "▁"): boolean {
  return vocabulary.some((piece) => piece.length > mark.length && piece.startsWith(mark));
}
