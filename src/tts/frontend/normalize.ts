/**
 * First step of the text front-end: canonical Unicode and whitespace, so that every later step
 * (blocked-content check, number reading, sentence splitting) sees one spelling of the text.
 */
import { stripMarks, stripTatweel } from "../../text/arabic/marks.ts";

/** Horizontal whitespace after NFKC (NFKC already folds NBSP and the other Unicode spaces). */
const HORIZONTAL_SPACE = /[ \t\f\v]+/g;

/**
 * Normalises raw input text for speech: NFKC (folds Arabic presentation forms such as "ﻻ" into
 * letters and full-width digits into ASCII), CR/CRLF to LF, tatweel (a typographic stretch espeak
 * would otherwise voice) and the invisible format marks of the text kit's table removed (direction
 * marks, zero-width space, BOM: no sound, and they would split words), runs of spaces/tabs
 * collapsed to one space, blank lines collapsed, ends trimmed. Arabic diacritics (harakat, shadda,
 * sukun) are kept: they decide pronunciation.
 */
export function normalizeText(raw: string): string {
  return stripMarks(stripTatweel(raw.normalize("NFKC").replace(/\r\n?/g, "\n")), "format")
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
