/**
 * D7 blocked content: text that looks like markup, script URIs, template/expression syntax or
 * raw control bytes is refused with 400 `Text contains invalid content`. Speech engines would
 * read such text aloud, and downstream systems (transcripts, SSML bridges, IVR logs) may
 * interpret it. Matching runs on NFKC text so full-width look-alikes ("＜ｓｃｒｉｐｔ") cannot slip
 * past. The rules are tuned against false positives on ordinary call-centre text: "2 < 3",
 * "price $5", "a@b.com", "<3", "x<y and y>z", "Customer data: name" all pass. Bidi controls and
 * lone surrogates are refused rather than silently removed (issue #16): normalising would make the
 * spoken text differ from what the client sent, and a refusal tells the client at once.
 */

import { AppError, Detail } from "../../errors/taxonomy.ts";

/** Lets `javascript`/`vbscript` be split by whitespace, as browsers strip it inside URLs. */
function spaced(word: string): string {
  return [...word].join("\\s*");
}

/**
 * Default patterns (regular-expression sources, compiled case-insensitive with the `u` flag).
 * Operators may replace the list through configuration; see {@link createContentFilter}.
 */
export const DEFAULT_BLOCKED_PATTERNS: readonly string[] = Object.freeze([
  // Dangerous elements even when unclosed or mangled: "<script", "< iframe src=…".
  String.raw`<\s*/?\s*(?:script|iframe|frame|frameset|object|embed|applet|style|svg|math|img|image|link|meta|base|form|input|button|textarea|video|audio|source|body|html|xml)\b`,
  // A bare opening or closing tag: "<b>", "</div>", "<br/>" (not "a < b > c": no tag starts with a space).
  String.raw`</?[a-z][a-z0-9-]*\s*/?>`,
  // A tag with at least one attribute assignment: "<a href=x>", "<p class='c'>".
  String.raw`<[a-z][a-z0-9-]*\s+[^<>]*=[^<>]*>`,
  // Comments, doctype, CDATA, processing instructions: "<!--", "<!DOCTYPE", "<?php".
  String.raw`<\s*(?:!--|![a-z\[]|\?[a-z])`,
  // Script URIs, whitespace tolerated inside the scheme and before the colon.
  `${spaced("javascript")}\\s*:`,
  `${spaced("vbscript")}\\s*:`,
  // data: URIs need a media type or the comma, so "data: name, phone" stays allowed.
  String.raw`\bdata\s*:\s*(?:[a-z]+/[a-z0-9.+-]+|(?:;[a-z0-9=.+-]+)*,)`,
  // Template and expression syntax: {{ }}, ${ }, <% %>, {% %}.
  String.raw`\{\{[\s\S]*?\}\}`,
  String.raw`\$\{[^}]*\}`,
  String.raw`<%[\s\S]*?%>`,
  String.raw`\{%[\s\S]*?%\}`,
  // C0 controls except tab, LF and CR (CR is read as a newline), DEL, C1 controls; includes NUL.
  String.raw`[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]`,
  // Bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): they reorder how text
  // displays in transcripts and logs without changing what is spoken ("Trojan Source"). The marks
  // LRM/RLM/ALM (U+200E, U+200F, U+061C) stay allowed: ordinary Arabic text carries them.
  String.raw`[\u202A-\u202E\u2066-\u2069]`,
  // A lone surrogate (with the u flag a pair is one code point and does not match): not text.
  String.raw`[\uD800-\uDFFF]`,
]);

/** A predicate over raw text: true when the text must be refused. */
export type ContentFilter = (text: string) => boolean;

/** Thrown when a configured pattern is not a valid regular expression (a start-up config error). */
export class InvalidBlockedPatternError extends Error {
  /** Position of the bad pattern in the configured list. */
  readonly index: number;

  constructor(index: number, pattern: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`tts.blocked_patterns[${index}] is not a valid regular expression (${pattern}): ${reason}`, { cause });
    this.name = "InvalidBlockedPatternError";
    this.index = index;
  }
}

/**
 * Compiles a content filter. `patterns` undefined means {@link DEFAULT_BLOCKED_PATTERNS}; an
 * empty list disables the check. Patterns are compiled once, here, so a bad configuration
 * fails at start-up rather than on the first request.
 */
export function createContentFilter(patterns: readonly string[] | undefined): ContentFilter {
  const compiled = (patterns ?? DEFAULT_BLOCKED_PATTERNS).map((source, index) => {
    try {
      return new RegExp(source, "iu");
    } catch (error) {
      throw new InvalidBlockedPatternError(index, source, error);
    }
  });
  return (text) => {
    if (compiled.length === 0) return false;
    const folded = text.normalize("NFKC");
    return compiled.some((re) => re.test(folded));
  };
}

/** The filter with the default pattern list. */
export const isBlockedContent: ContentFilter = createContentFilter(undefined);

/** Throws the D7 400 error when `filter` refuses `text`. */
export function assertAllowedContent(text: string, filter: ContentFilter = isBlockedContent): void {
  if (filter(text)) throw new AppError("bad_request", Detail.invalidContent);
}
