/**
 * Written forms and redaction applied together, to a transcript's words or to plain text.
 *
 * For a transcript, {@link formatWords} takes the recogniser's words in order (across segments,
 * so a card number split over two segments is still found) and answers tokens that each name the
 * input words [from, to) they replace: a token's time is `words[from].start`–`words[to-1].end`,
 * and a redaction's time is that of its words, so recording systems can mute the audio. Redaction
 * always looks at the written form (spoken and written digits alike), whether or not `itn` asks
 * for it in the output; the spoken form is redacted too, so no output carries a hidden digit.
 */
import { toArabicIndic } from "./arabic/digits.ts";
import { arabicItn } from "./itn/arabic.ts";
import { englishItn } from "./itn/english.ts";
import { wordsOf, type TokenKind, type WrittenToken } from "./itn/words.ts";
import type { RedactionType } from "./redact/classes.ts";
import { findRedactions } from "./redact/redact.ts";

/** Digits of Arabic written forms (`asr.digits`). */
export type DigitStyle = "western" | "arabic-indic";

/** Languages with written-form rules. */
export type FormatLanguage = "ar" | "en";

/** What to apply. */
export interface FormatOptions {
  readonly language: FormatLanguage;
  /** Written forms in `written` (otherwise it carries the spoken words, redacted). */
  readonly itn: boolean;
  readonly redact: ReadonlySet<RedactionType>;
  readonly digits: DigitStyle;
}

/** One output token over input words [from, to); `redacted` when it replaces hidden words. */
export interface FormattedToken {
  readonly text: string;
  readonly from: number;
  readonly to: number;
  readonly kind?: TokenKind;
  readonly redacted?: RedactionType;
}

/** A redaction over input words [from, to). */
export interface WordRedaction {
  readonly type: RedactionType;
  readonly from: number;
  readonly to: number;
}

/** Both forms of a transcript's words, and what was hidden. */
export interface FormattedWords {
  /** Written forms (or the spoken words with `itn` off), redacted. */
  readonly written: readonly FormattedToken[];
  /** The spoken words, redacted. */
  readonly spoken: readonly FormattedToken[];
  readonly redactions: readonly WordRedaction[];
}

/** The marker that replaces a redacted span. */
export const redactionMarker = (type: RedactionType): string => `[REDACTED:${type}]`;

/** The language of a text when the caller names none: Arabic if it has Arabic letters. */
export function guessLanguage(text: string): FormatLanguage {
  return /[\u0600-\u06FF]/u.test(text) ? "ar" : "en";
}

/** Replaces the tokens inside each span by one marker token over the span's words. */
function mask(tokens: readonly FormattedToken[], spans: readonly WordRedaction[]): FormattedToken[] {
  const out: FormattedToken[] = [];
  let s = 0;
  for (const token of tokens) {
    while (s < spans.length && spans[s]!.to <= token.from) s++;
    const span = spans[s];
    if (span && token.from >= span.from && token.to <= span.to) {
      if (token.from === span.from)
        out.push({ text: redactionMarker(span.type), from: span.from, to: span.to, redacted: span.type });
      continue;
    }
    out.push(token);
  }
  return out;
}

/** Written forms and redaction over a transcript's words (see the file comment). */
export function formatWords(words: readonly string[], options: FormatOptions): FormattedWords {
  const itn = options.language === "ar" ? arabicItn(words) : englishItn(words);
  const redactions: WordRedaction[] = findRedactions(itn, options.redact).map((span) => ({
    type: span.type,
    from: itn[span.from]!.from,
    to: itn[span.to - 1]!.to,
  }));
  const spokenTokens: FormattedToken[] = words.map((text, i) => ({ text, from: i, to: i + 1 }));
  const styled = (t: WrittenToken): FormattedToken =>
    options.digits === "arabic-indic" && options.language === "ar" && t.kind !== undefined
      ? { ...t, text: toArabicIndic(t.text) }
      : t;
  const written = options.itn ? itn.map(styled) : spokenTokens;
  return { written: mask(written, redactions), spoken: mask(spokenTokens, redactions), redactions };
}

/** The answer of `POST /v1/asr/format`: offsets are UTF-16 code units into `text_spoken`. */
export interface FormattedText {
  readonly text: string;
  readonly text_spoken: string;
  readonly redactions: readonly { readonly type: RedactionType; readonly start: number; readonly end: number }[];
}

/** {@link formatWords} over plain text (split on white space, joined by single spaces). */
export function formatText(text: string, options: FormatOptions): FormattedText {
  const result = formatWords(wordsOf(text), options);
  const join = (tokens: readonly FormattedToken[]) => tokens.map((t) => t.text).join(" ");
  const redactions: { type: RedactionType; start: number; end: number }[] = [];
  let offset = 0;
  for (const token of result.spoken) {
    if (token.redacted) redactions.push({ type: token.redacted, start: offset, end: offset + token.text.length });
    offset += token.text.length + 1;
  }
  return { text: join(result.written), text_spoken: join(result.spoken), redactions };
}
