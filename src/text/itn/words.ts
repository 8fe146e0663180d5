/**
 * The unit inverse text normalisation works on: the words of a transcript, each split into its
 * punctuation and its core, and the written tokens that replace them. A written token knows the
 * input words it spans (`from`..`to`), so a transcript's word times carry over to it unchanged.
 */
import { foldArabic } from "../arabic/fold.ts";

/** One input word: leading punctuation, the core the rules read, trailing punctuation. */
export interface Word {
  readonly raw: string;
  readonly pre: string;
  readonly core: string;
  readonly post: string;
  /** The core folded for lookup (`foldArabic`'s `match`: Arabic letter variants and marks, Latin case). */
  readonly key: string;
}

/** What a written token is, for redaction and digit styling; undefined for words left as they were. */
export type TokenKind = "cardinal" | "digits" | "decimal" | "money" | "percent" | "time" | "date" | "ordinal" | "iban";

/** One output token: its text and the input words [from, to) it replaces. */
export interface WrittenToken {
  readonly text: string;
  readonly from: number;
  readonly to: number;
  readonly kind?: TokenKind;
}

/** What a rule recognised at a position: the written text (no outer punctuation) and its end. */
export interface Match {
  readonly text: string;
  /** Index after the last word used. */
  readonly end: number;
  readonly kind: TokenKind;
}

/** A recogniser tried at each word position; undefined when it does not apply there. */
export type Rule = (words: readonly Word[], i: number) => Match | undefined;

const LEADING = /^[«"'“‘(\[{]+/u;
const TRAILING = /[.,،؛;:!?؟»"'”’)\]}]+$/u;
/**
 * The lookup key of a word (or of a table's spelling): the text kit's `match` folding, so a word
 * is found however a recogniser spelt its hamza, alef, ta marbuta, final ya or marks, exactly as
 * the SRGS matcher compares words.
 */
export function wordKey(text: string): string {
  return foldArabic(text, "match");
}

/** Splits a raw word into punctuation and core; "a.m." and "$5" keep their inner marks. */
export function splitWord(raw: string): Word {
  const pre = LEADING.exec(raw)?.[0] ?? "";
  let rest = raw.slice(pre.length);
  let post = TRAILING.exec(rest)?.[0] ?? "";
  // "a.m." / "p.m.": the final dot belongs to the abbreviation.
  if (/^[ap]\.m$/i.test(rest.slice(0, rest.length - post.length)) && post.startsWith(".")) post = post.slice(1);
  rest = rest.slice(0, rest.length - post.length);
  return { raw, pre, core: rest, post, key: wordKey(rest) };
}

/** Splits text on white space into words (the tokens of a plain-text input). */
export function wordsOf(text: string): string[] {
  return text.split(/\s+/u).filter((w) => w.length > 0);
}

/** Whether a number may continue past word `i` (no punctuation after it). */
export function joinable(words: readonly Word[], i: number): boolean {
  return words[i] !== undefined && words[i]!.post === "" && words[i + 1] !== undefined && words[i + 1]!.pre === "";
}

/** Whether only a comma (a spoken pause between digit groups) follows word `i`. */
export function commaAfter(words: readonly Word[], i: number): boolean {
  const post = words[i]?.post;
  return (post === "," || post === "،") && words[i + 1] !== undefined && words[i + 1]!.pre === "";
}

/** Runs `rules` left to right over `raw` words; words no rule claims stay as they were. */
export function rewriteWords(raw: readonly string[], rules: readonly Rule[]): WrittenToken[] {
  const words = raw.map(splitWord);
  const out: WrittenToken[] = [];
  let i = 0;
  while (i < words.length) {
    let match: Match | undefined;
    if (words[i]!.core !== "") for (const rule of rules) if ((match = rule(words, i))) break;
    if (match && match.end > i) {
      const text = words[i]!.pre + match.text + words[match.end - 1]!.post;
      out.push({ text, from: i, to: match.end, kind: match.kind });
      i = match.end;
    } else {
      out.push({ text: words[i]!.raw, from: i, to: i + 1 });
      i++;
    }
  }
  return out;
}

/** Writes an integer, grouping thousands from a million up so it is not read back as an account number. */
export function writeInteger(n: number): string {
  return n >= 1_000_000 ? n.toLocaleString("en-US") : String(n);
}

/** Writes a units + subunits amount: "12.50", "5.250" (KWD), "1,000,000". */
export function writeAmount(units: number, subs: number | undefined, subunits: number): string {
  const width = String(subunits).length - 1;
  return subs === undefined ? writeInteger(units) : `${writeInteger(units)}.${String(subs).padStart(width, "0")}`;
}

/** A digit sequence: its digits in groups (split where the reader paused with a comma). */
export interface DigitRun {
  readonly groups: readonly string[];
  readonly end: number;
}

/**
 * Keeps comma-separated digit groups together only when they form a phone-like number (7+ digits,
 * every later group 2+ digits), else just the first group; one digit alone is no run.
 */
export function settleGroups(groups: string[], ends: readonly number[]): DigitRun | undefined {
  const total = groups.join("").length;
  if (groups.length > 1 && (total < 7 || groups.slice(1).some((g) => g.length < 2))) {
    return groups[0]!.length >= 2 ? { groups: [groups[0]!], end: ends[0]! } : undefined;
  }
  return total >= 2 ? { groups, end: ends.at(-1)! } : undefined;
}

/** Two-digit minutes or seconds. */
export const pad2 = (n: number): string => String(n).padStart(2, "0");
