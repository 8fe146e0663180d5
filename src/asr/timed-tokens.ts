/**
 * Text and word times from timed vocabulary tokens (SentencePiece's, with `▁` word starts), for
 * the families that know when each token was emitted (CTC and transducers, from the encoder frame of each token). `▁` starts a
 * word; control symbols (`<unk>`, `<blk>`, …) add nothing; a word spans from its first token's
 * start to its last token's end. CTC (ctc/pipeline.ts ctcText) adds word breaks at pauses.
 */
import type { RecognizedText, RecognizedWord } from "./recognizer.ts";

/** SentencePiece's word-start marker. */
export const WORD_MARK = "▁";

/** One emitted vocabulary token and when (seconds, within the segment) it sounded. */
export interface TimedToken {
  readonly token: string;
  readonly start: number;
  readonly end: number;
}

/** Whether a vocabulary entry is a control symbol (`<unk>`, `<blk>`, `<pad>`, …) rather than text. */
export function isControlToken(token: string): boolean {
  return /^<[^<>\s]+>$/.test(token);
}

/**
 * Joins timed tokens into text with one word per `▁`-started run, each with its times. A time in
 * `wordBreaks` (seconds) between the current word's end and the next token's start also starts a
 * new word (see ctcText for why).
 */
export function timedTokensText(tokens: readonly TimedToken[], wordBreaks: readonly number[] = []): RecognizedText {
  const words: RecognizedWord[] = [];
  let word = "";
  let start = 0;
  let end = 0;
  const flush = () => {
    if (word !== "") words.push({ word, start, end });
    word = "";
  };
  for (const timed of tokens) {
    if (isControlToken(timed.token)) continue;
    if (word !== "" && wordBreaks.some((at) => at >= end && at <= timed.start)) flush();
    // Every `▁` starts a new word; text before the first one continues the current word.
    for (const [index, part] of timed.token.split(WORD_MARK).entries()) {
      if (index > 0) flush();
      if (part === "") continue;
      if (word === "") start = timed.start;
      word += part;
      end = Math.max(end, timed.end);
    }
  }
  flush();
  return { text: words.map((w) => w.word).join(" "), words };
}
