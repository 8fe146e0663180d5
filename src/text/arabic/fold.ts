/**
 * Arabic-aware normalisation, applied alike to grammar words and to transcripts so that spelling
 * variants an ASR model or a grammar author may produce compare equal. Recognisers differ in how
 * they write hamza, alef, ta marbuta and final ya (and whether they add harakat), while callers
 * never hear the difference; an IVR menu item must match whichever spelling came out.
 */

/**
 * Marks that do not change which word it is: every combining mark left after NFKC (harakat,
 * shadda, sukun, tanwin, superscript alef, Quranic annotation and small high letters; a Latin
 * accent NFKC could not compose) and tatweel (U+0640), a typographic stretch. Removed rather than
 * made separators, so that a stray mark never splits a word.
 */
const MARKS = /[\p{M}\u0640]/gu;

/** Direction and zero-width marks copied along with Arabic text; they would split or glue words. */
const INVISIBLE = /[\u200B-\u200F\u061C\u202A-\u202E\u2066-\u2069\uFEFF]/gu;

/** Letter foldings: each key is written as its value. */
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

/** Arabic-Indic (U+0660–U+0669) and Eastern Arabic-Indic (U+06F0–U+06F9) digits → 0–9. */
const INDIC_DIGITS = /[\u0660-\u0669\u06F0-\u06F9]/gu;

const indicDigit = (digit: string): string => {
  const code = digit.codePointAt(0)!;
  return String(code >= 0x06f0 ? code - 0x06f0 : code - 0x0660);
};

/** Anything that is not a letter or a digit after the foldings: punctuation, symbols, spaces. */
const SEPARATORS = /[^\p{L}\p{N}]+/gu;

/**
 * Normalises text for matching: NFKC (presentation forms such as ﻻ become letters, full-width
 * forms ASCII), marks and tatweel removed, the letter foldings above, Indic digits to Western,
 * Latin lower-cased, and every run of punctuation or space made one space; ends trimmed.
 */
export function normalizeForMatch(text: string): string {
  return text
    .normalize("NFKC")
    .replace(INVISIBLE, "")
    .replace(MARKS, "")
    .replace(LETTER_PATTERN, (letter) => LETTERS[letter] ?? letter)
    .replace(INDIC_DIGITS, indicDigit)
    .toLowerCase()
    .replace(SEPARATORS, " ")
    .trim();
}

/** The normalised words of `text` (none for text of punctuation only). */
export function matchWords(text: string): string[] {
  const normalized = normalizeForMatch(text);
  return normalized === "" ? [] : normalized.split(" ");
}
