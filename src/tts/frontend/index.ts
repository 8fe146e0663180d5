/**
 * The text front-end: raw request text → bounded sentences ready for phonemisation or a
 * character-based model. Order matters: NFKC first (so digits and presentation forms are
 * canonical), numbers next (they contain "." and "," that must not split sentences), sentence
 * splitting last. Numbers and dialect readings are the text kit's (src/text), which ASR's written
 * forms invert.
 */

import type { Dialect } from "../../core/tts.ts";
import { readInDialect } from "../../text/numbers/dialects.ts";
import { collapseWhitespace, normalizeText } from "./normalize.ts";
import { normalizeNumbers, type NumberLanguage } from "../../text/verbalize/numbers.ts";
import { DEFAULT_MAX_SENTENCE_CHARS, splitSentences, type Sentence } from "./sentences.ts";

export { codePointLength } from "./length.ts";
export { normalizeText } from "./normalize.ts";
export {
  completeSentencesEnd,
  splitClauses,
  splitSentences,
  DEFAULT_MAX_SENTENCE_CHARS,
  type Clause,
  type Sentence,
} from "./sentences.ts";
export {
  createContentFilter,
  isBlockedContent,
  assertAllowedContent,
  DEFAULT_BLOCKED_PATTERNS,
  type ContentFilter,
} from "./blocked.ts";

/** Options of {@link prepareText}. */
export interface PrepareOptions {
  /** Longest sentence handed on, in code points (default {@link DEFAULT_MAX_SENTENCE_CHARS}). */
  readonly maxSentenceChars?: number;
  /** The speaking dialect: Egyptian and Levantine read numbers and some words their way (./dialects.ts). */
  readonly dialect?: Dialect | "en";
}

/**
 * Runs the whole front-end: normalise → read numbers in `lang` → dialect readings → split into sentences.
 * Returns no sentences for text that is empty after normalisation.
 */
export function prepareText(raw: string, lang: NumberLanguage, options: PrepareOptions = {}): Sentence[] {
  const numbers = normalizeNumbers(normalizeText(raw), lang);
  const text = collapseWhitespace(lang === "ar" ? readInDialect(numbers, options.dialect) : numbers);
  return splitSentences(text, options.maxSentenceChars ?? DEFAULT_MAX_SENTENCE_CHARS);
}
