/**
 * THE Arabic letter folding, one function with a named variant per use, so that two features
 * never disagree on which spellings are the same word:
 *
 * - `match`: every spelling a recogniser, a grammar author or a caller's keyboard may produce for
 *   one word compares equal. Recognisers differ in how they write hamza, alef, ta marbuta and final
 *   ya, and whether they add harakat, while callers never hear the difference. NFKC (presentation
 *   forms such as ﻻ become letters, full-width forms ASCII), invisible characters, every combining
 *   mark and tatweel removed, the letter foldings below, Indic digits to ASCII, Latin lower-cased.
 *   The SRGS matcher compares with it ({@link matchWords}) and written forms look words up with it
 *   (src/text/itn/words.ts), so an IVR grammar and ITN accept the same spellings.
 * - `lexicon`: the letters the author wrote, as a pronunciation lexicon keys a grapheme: vowel
 *   marks and tatweel off, letters as written (an author who writes «أحمد» chose the hamza).
 * - `display`: vowel marks off, nothing else: the console shows a word as changed when Sawt changed
 *   more than its harakat.
 */
import { asciiDigits } from "./digits.ts";
import { MARK_CLASS, stripMarks, stripTatweel, TATWEEL } from "./marks.ts";

/** The uses a folding serves (see the file comment). */
export type FoldVariant = "match" | "lexicon" | "display";

/** Letter foldings of `match`: each key is written as its value. */
const LETTERS: Readonly<Record<string, string>> = {
  "\u0623": "\u0627", // أ alef with hamza above → ا
  "\u0625": "\u0627", // إ alef with hamza below → ا
  "\u0622": "\u0627", // آ alef with madda → ا
  "\u0671": "\u0627", // ٱ alef wasla → ا
  "\u0649": "\u064A", // ى alef maqsura → ي
  "\u0629": "\u0647", // ة ta marbuta → ه
  "\u0624": "\u0648", // ؤ waw with hamza → و
  "\u0626": "\u064A", // ئ ya with hamza → ي
  "\u06CC": "\u064A", // ی Farsi yeh (Persian keyboards) → ي
  "\u06A9": "\u0643", // ک keheh (Persian keyboards) → ك
};
const LETTER_PATTERN = new RegExp(`[${Object.keys(LETTERS).join("")}]`, "gu");

/**
 * One character `lexicon` or `display` drops, as a regular-expression source (`u` flag): a
 * pattern that finds a folded word in unfolded text allows any number of them between its letters.
 */
export function droppedBy(variant: "lexicon" | "display"): string {
  return variant === "lexicon" ? `(?:${MARK_CLASS.vowel}|${TATWEEL})` : MARK_CLASS.vowel;
}

const dropped = {
  lexicon: new RegExp(droppedBy("lexicon"), "gu"),
  display: new RegExp(droppedBy("display"), "gu"),
};

/** `text` folded for `variant` (see the file comment). */
export function foldArabic(text: string, variant: FoldVariant): string {
  if (variant !== "match") return text.replace(dropped[variant], "");
  const bare = stripTatweel(stripMarks(stripMarks(text.normalize("NFKC"), "invisible"), "any"));
  return asciiDigits(bare.replace(LETTER_PATTERN, (letter) => LETTERS[letter] ?? letter)).toLowerCase();
}

/** Anything that is not a letter or a digit after folding: punctuation, symbols, spaces. */
const SEPARATORS = /[^\p{L}\p{N}]+/gu;

/**
 * Text folded for matching (`match`), every run of punctuation or space made one space, ends
 * trimmed: how the SRGS matcher compares a grammar's words with a transcript.
 */
export function normalizeForMatch(text: string): string {
  return foldArabic(text, "match").replace(SEPARATORS, " ").trim();
}

/** The words of `text` folded for matching (none for text of punctuation only). */
export function matchWords(text: string): string[] {
  const normalized = normalizeForMatch(text);
  return normalized === "" ? [] : normalized.split(" ");
}
