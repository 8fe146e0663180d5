/**
 * THE table of Arabic marks: every combining mark Arabic text carries, grouped by what it does,
 * and the regular-expression classes every feature builds from it. Nothing else in src/ names
 * these code points (test/tooling/arabic-text.test.ts greps for them), so "ignoring harakat"
 * means the same marks in ITN, the SRGS matcher, the pronunciation lexicon, the diacritiser and
 * the console.
 */

/**
 * The eight harakat (U+064B–U+0652): fathatan, dammatan, kasratan, fatha, damma, kasra, shadda,
 * sukun. The marks a diacritiser writes: libtashkeel reads and predicts exactly these.
 */
const HARAKAT = "\\u064B-\\u0652";

/**
 * Marks that make a letter (U+0653–U+0655): madda above, hamza above and below. NFC composes them
 * with alef, waw and ya (ا + ◌ٔ is أ), so they are part of the letter, not a vowel on it.
 */
const LETTER_MARKS = "\\u0653-\\u0655";

/**
 * Other vowel marks (U+0656–U+065F: subscript alef, inverted damma, the marks of Arabic-script
 * languages) and the superscript ("dagger") alef U+0670 of «هٰذا», «الرحمٰن».
 */
const OTHER_VOWELS = "\\u0656-\\u065F\\u0670";

/**
 * Quranic and extended annotation: honorific signs U+0610–U+061A, small high letters, stops and
 * signs U+06D6–U+06ED (less the two that are not marks), Arabic Extended-A and -B marks
 * (U+0897–U+089F, U+08CA–U+08FF less the end-of-ayah sign U+08E2) and Extended-C U+10EFA–U+10EFF.
 */
const ANNOTATION =
  "\\u0610-\\u061A\\u06D6-\\u06DC\\u06DF-\\u06E4\\u06E7\\u06E8\\u06EA-\\u06ED" +
  "\\u0897-\\u089F\\u08CA-\\u08E1\\u08E3-\\u08FF\\u{10EFA}-\\u{10EFF}";

/** Tatweel (kashida, U+0640): a typographic stretch between letters; a letter modifier, not a mark, and silent. */
export const TATWEEL = "\u0640";

/** Shadda (U+0651), which libtashkeel's maps write before the vowel it doubles. */
export const SHADDA = "\u0651";

/**
 * Invisible format characters copied along with Arabic text: the direction marks LRM, RLM and the
 * Arabic letter mark ALM, bidi embeddings, overrides and isolates, the zero-width space and the
 * BOM. They carry no sound and would split or glue words.
 */
const FORMAT_MARKS = "\\u200B\\u200E\\u200F\\u061C\\u202A-\\u202E\\u2066-\\u2069\\uFEFF";

/**
 * The zero-width non-joiner and joiner (U+200C, U+200D): they change how letters join (and build
 * emoji sequences), not which word it is.
 */
const JOINERS = "\\u200C\\u200D";

/** Regular-expression character classes (sources, for the `u` flag) built from the table. */
export const MARK_CLASS = {
  /** One of the eight harakat. */
  harakat: `[${HARAKAT}]`,
  /**
   * A vowel or reading mark: harakat, the other vowel marks, Quranic annotation. What "written
   * without harakat" removes; the marks that make a letter (hamza, madda) stay with it.
   */
  vowel: `[${HARAKAT}${OTHER_VOWELS}${ANNOTATION}]`,
  /** Any Arabic combining mark, vowel or letter-making. */
  arabic: `[${HARAKAT}${LETTER_MARKS}${OTHER_VOWELS}${ANNOTATION}]`,
  /** Any combining mark of any script (a Latin accent NFKC could not compose, too). */
  any: "\\p{M}",
  /** An invisible format character (see FORMAT_MARKS). */
  format: `[${FORMAT_MARKS}]`,
  /** An invisible format character or a zero-width (non-)joiner. */
  invisible: `[${FORMAT_MARKS}${JOINERS}]`,
} as const;

/**
 * What a word is written with, inside a character class: letters and the marks on them (an
 * Arabic word's harakat are part of it, so a boundary never falls between a letter and its mark).
 */
export const LETTER_OR_MARK = "\\p{L}\\p{M}";

/** {@link LETTER_OR_MARK} and digits: everything that is part of a word or a number, inside a class. */
export const WORD_CHARACTER = "\\p{L}\\p{M}\\p{N}";

const cache = new Map<string, RegExp>();
/** A global pattern of `source`, compiled once. */
function global(source: string): RegExp {
  let pattern = cache.get(source);
  if (!pattern) cache.set(source, (pattern = new RegExp(source, "gu")));
  return pattern;
}

/** `text` without the marks of `kind` (see {@link MARK_CLASS}). */
export function stripMarks(text: string, kind: keyof typeof MARK_CLASS): string {
  return text.replace(global(MARK_CLASS[kind]), "");
}

/** `text` without tatweel. */
export function stripTatweel(text: string): string {
  return text.replaceAll(TATWEEL, "");
}

const ONE_HARAKA = new RegExp(`^${MARK_CLASS.harakat}$`, "u");

/** Whether `char` (one code point) is one of the eight harakat. */
export function isHaraka(char: string): boolean {
  return ONE_HARAKA.test(char);
}

/** Whether `text` starts with a combining mark of any script (which must stay on the letter before it). */
export function startsWithMark(text: string): boolean {
  return /^\p{M}/u.test(text);
}
