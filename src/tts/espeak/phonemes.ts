/**
 * Text → IPA phonemes with libespeak-ng, shaped as Piper expects (decisions §4, Piper row):
 * one array of Unicode code points per sentence, words separated by " ", and each clause's
 * punctuation kept as a phoneme (", " ": " "; " inside a sentence; "." "?" "!" at its end).
 * Debian's espeak-ng 1.51 lacks espeak_TextToPhonemesWithTerminator, which Piper uses to learn
 * each clause's punctuation, so clauses are split here (sentences.ts) and the mark re-attached.
 * The espeak calls run in the espeak worker (native.ts); this module is their public face.
 */

import { DEFAULT_MAX_SENTENCE_CHARS, splitSentences, type Sentence } from "../frontend/sentences.ts";
import { withEspeak } from "./library.ts";

export { terminatorPhoneme } from "./punctuation.ts";

/** Phonemes (code points) of already-split sentences, with espeak voice `voice` ("ar", "en-us"). */
export function phonemizeSentences(sentences: readonly Sentence[], voice: string): Promise<string[][]> {
  return withEspeak((espeak) => espeak.phonemize(sentences, voice));
}

/**
 * Text → phonemes per sentence, Piper style. `text` should already be through the front-end
 * (numbers as words); sentences are bounded by `maxSentenceChars` code points.
 */
export function phonemize(
  text: string,
  voice: string,
  maxSentenceChars: number = DEFAULT_MAX_SENTENCE_CHARS,
): Promise<string[][]> {
  return phonemizeSentences(splitSentences(text, maxSentenceChars), voice);
}
