/**
 * First step of the text front-end: canonical Unicode and whitespace, so that every later step
 * (blocked-content check, number reading, sentence splitting) sees one spelling of the text.
 */

/** Arabic tatweel (kashida): a purely typographic stretch that espeak would otherwise voice. */
const TATWEEL = /\u0640/g;

/**
 * Invisible direction and formatting marks copied along with Arabic text (LRM/RLM, ALM, bidi
 * embeddings/isolates, zero-width space, BOM). They carry no sound and would split words.
 */
const INVISIBLE_MARKS = /[\u200B\u200E\u200F\u061C\u202A-\u202E\u2066-\u2069\uFEFF]/g;

/** Horizontal whitespace after NFKC (NFKC already folds NBSP and the other Unicode spaces). */
const HORIZONTAL_SPACE = /[ \t\f\v]+/g;

/**
 * Normalises raw input text for speech: NFKC (folds Arabic presentation forms such as "ﻻ" into
 * letters and full-width digits into ASCII), CR/CRLF to LF, tatweel and invisible marks removed,
 * runs of spaces/tabs collapsed to one space, blank lines collapsed, ends trimmed. Arabic
 * diacritics (harakat, shadda, sukun) are kept: they decide pronunciation.
 */
export function normalizeText(raw: string): string {
  return raw
    .normalize("NFKC")
    .replace(/\r\n?/g, "\n")
    .replace(TATWEEL, "")
    .replace(INVISIBLE_MARKS, "")
    .replace(HORIZONTAL_SPACE, " ")
    .replace(/ ?\n[\n ]*/g, "\n")
    .trim();
}

/** Collapses whitespace again after a step that inserted words (keeps single newlines). */
export function collapseWhitespace(text: string): string {
  return text
    .replace(HORIZONTAL_SPACE, " ")
    .replace(/ ?\n[\n ]*/g, "\n")
    .trim();
}
