/**
 * Phoneme spans: a stretch of text whose pronunciation is given as IPA (SSML `<phoneme>`, an IPA
 * lexicon entry). The span travels through the front-end inside the text, delimited by private-use
 * characters no user text can hold (they are stripped from input), so sentence splitting,
 * number reading and diacritisation leave it in place. An espeak-phoneme voice is fed the IPA;
 * a voice that reads letters (espeak-ng itself, text voices) reads the written form.
 */
const OPEN = "\uE000";
const SEPARATOR = "\uE001";
const CLOSE = "\uE002";
const SPAN = /\uE000([\u{F0000}-\u{FFFFD}]*)\uE001([^\uE000-\uE002]*)\uE002/gu;
const MARKERS = /[\uE000-\uE002\u{F0000}-\u{FFFFD}]/gu;
const PLANE_15 = 0xf0000;

const hide = (ipa: string) => Array.from(ipa, (c) => String.fromCodePoint(PLANE_15 + c.codePointAt(0)!)).join("");
const reveal = (hidden: string) =>
  Array.from(hidden, (c) => String.fromCodePoint(c.codePointAt(0)! - PLANE_15)).join("");

/** IPA the span syntax accepts: words of printable characters, no sentence punctuation, no markers. */
export const IPA_TEXT =
  /^[^\s.,!?;:،؛؟\uE000-\uE002\u{F0000}-\u{FFFFD}<>&]{1,64}(?: [^\s.,!?;:،؛؟\uE000-\uE002\u{F0000}-\u{FFFFD}<>&]{1,64})*$/u;

/** A span saying `written` with the IPA `ipa` (validated by the caller against {@link IPA_TEXT}). */
export function phonemeSpan(ipa: string, written: string): string {
  return `${OPEN}${hide(ipa)}${SEPARATOR}${written.replace(MARKERS, "")}${CLOSE}`;
}

/** `text` with the span markers users might have typed removed (so only Sawt makes spans). */
export function stripSpanMarkers(text: string): string {
  return text.replace(MARKERS, "");
}

/** True when `text` holds a phoneme span. */
export function hasPhonemeSpans(text: string): boolean {
  return text.includes(OPEN);
}

/** The text as letters are read: each span replaced by its written form. */
export function writtenForm(text: string): string {
  return text.replace(SPAN, (_m, _ipa: string, written: string) => written);
}

/** One piece of a text: plain text to phonemise, or IPA to feed as it is. */
export type SpanPiece =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "ipa"; readonly ipa: string };

/** Splits `text` into text and IPA pieces. */
export function spanPieces(text: string): SpanPiece[] {
  const pieces: SpanPiece[] = [];
  let last = 0;
  for (const match of text.matchAll(SPAN)) {
    if (match.index > last) pieces.push({ kind: "text", text: text.slice(last, match.index) });
    pieces.push({ kind: "ipa", ipa: reveal(match[1]!) });
    last = match.index + match[0].length;
  }
  if (last < text.length) pieces.push({ kind: "text", text: text.slice(last) });
  return pieces;
}
