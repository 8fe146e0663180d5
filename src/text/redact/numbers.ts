/**
 * Redaction of numbers in written tokens (after inverse text normalisation, so spoken and
 * written digits look alike): card numbers, Saudi IDs and phones found in chains of digit
 * tokens that only fillers («يعني», «اه», "uh") separate, so a card read in four groups with
 * hesitations, or split over two segments, is still one card; IBANs; a CVV or expiry date after
 * the words that announce it.
 */
import { asciiDigits } from "../arabic/digits.ts";
import { isCardNumber, isIban, isSaudiId } from "./checks.ts";
import { splitWord, type WrittenToken } from "../itn/words.ts";
import type { RedactionType } from "./classes.ts";

/** A redacted span in token indices [from, to). */
export interface TokenSpan {
  readonly type: RedactionType;
  readonly from: number;
  readonly to: number;
}

const FILLERS = new Set([
  "يعني",
  "اه",
  "ااه",
  "اها",
  "ام",
  "امم",
  "اممم",
  "مم",
  "ممم",
  "ايه",
  "uh",
  "uhh",
  "um",
  "umm",
  "uhm",
  "er",
  "erm",
  "ah",
  "hmm",
  "mm",
]);

/** Folded key of a token's text (punctuation off). */
export function tokenKey(token: WrittenToken): string {
  return splitWord(token.text).key;
}

/** Whether a token is a hesitation a number may continue across. */
export function isFiller(token: WrittenToken): boolean {
  return FILLERS.has(tokenKey(token));
}

/** The digits of a token that is only a number ("4111", "050 123 4567", "+966…"), else undefined. */
export function digitsOf(token: WrittenToken, allow = /[ -]/g): string | undefined {
  if (token.kind !== undefined && token.kind !== "digits" && token.kind !== "cardinal") return undefined;
  const core = asciiDigits(token.text).replace(/^[^\d+]+|[^\d]+$/g, "");
  if (!/^\+?\d[\d ./-]*$/.test(core)) return undefined;
  const digits = core.replace(allow, "");
  return /^\+?\d+$/.test(digits) ? digits : undefined;
}

const PHONES = [
  /^(?:\+|00)?9665\d{8}$/,
  /^(?:\+|00)?966[1-9]\d{7}$/,
  /^05\d{8}$/,
  /^(?:\+|00)?201[0125]\d{8}$/,
  /^01[0125]\d{8}$/,
  /^(?:\+|00)?971[1-9]\d{7,8}$/,
  /^(?:\+|00)?965[569]\d{7}$/,
  /^(?:\+|00)?9[67][0-9]\d{7,10}$/,
  /^\+\d{8,15}$/,
  /^0\d{8,10}$/,
  /^9200\d{5}$/,
  /^800\d{7}$/,
];

/** Whether `digits` (with an optional +) looks like a phone number of the region or any E.164 number. */
export function isPhone(digits: string): boolean {
  return PHONES.some((p) => p.test(digits));
}

/** Card, ID and phone spans in chains of digit tokens joined by fillers. */
export function numberChains(tokens: readonly WrittenToken[]): TokenSpan[] {
  const spans: TokenSpan[] = [];
  let chain: { index: number; digits: string }[] = [];
  const flush = () => {
    spans.push(...chainSpans(chain));
    chain = [];
  };
  tokens.forEach((token, index) => {
    const digits = digitsOf(token);
    if (digits !== undefined) {
      chain.push({ index, digits });
      if (/[.,،؛?!؟]$/.test(token.text) && !/[,،]$/.test(token.text)) flush();
    } else if (!(isFiller(token) && chain.length > 0)) flush();
  });
  flush();
  return spans;
}

function chainSpans(chain: readonly { index: number; digits: string }[]): TokenSpan[] {
  const spans: TokenSpan[] = [];
  let a = 0;
  while (a < chain.length) {
    let found: TokenSpan | undefined;
    let joined = "";
    for (let b = a; b < chain.length && joined.length <= 19; b++) {
      joined += b === a ? chain[b]!.digits : chain[b]!.digits.replace("+", "");
      const span = { from: chain[a]!.index, to: chain[b]!.index + 1 };
      if (isCardNumber(joined)) found = { type: "card", ...span };
      else if (!found && isSaudiId(joined)) found = { type: "national_id", ...span };
      else if ((!found || found.type === "phone") && isPhone(joined)) found = { type: "phone", ...span };
    }
    if (found) {
      spans.push(found);
      a = chain.findIndex((c) => c.index >= found.to);
      if (a < 0) break;
    } else a++;
  }
  return spans;
}

const IBAN_HEAD = /^[A-Z]{2}\d{2}[A-Z0-9]*$/i;

/** IBANs: a token the spoken-IBAN rule wrote, or a written one, possibly in groups of four. */
export function ibanSpans(tokens: readonly WrittenToken[]): TokenSpan[] {
  const spans: TokenSpan[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i]!.kind === "iban") {
      spans.push({ type: "iban", from: i, to: i + 1 });
      continue;
    }
    let code = splitWord(tokens[i]!.text).core.toUpperCase();
    if (!IBAN_HEAD.test(code)) continue;
    let best: number | undefined;
    for (let j = i; j < tokens.length && code.length <= 34; ) {
      if (isIban(code)) best = j + 1;
      const next = tokens[++j] ? splitWord(tokens[j]!.text).core.toUpperCase() : "";
      if (!/^[A-Z0-9]{1,4}$/.test(next)) break;
      code += next;
    }
    if (best !== undefined) {
      spans.push({ type: "iban", from: i, to: best });
      i = best - 1;
    }
  }
  return spans;
}

const CVV_WORDS = [
  "cvv",
  "cvc",
  "cvv2",
  "cvc2",
  "cid",
  "security code",
  "verification code",
  "رمز التحقق",
  "الرمز السري",
  "رمز الامان",
  "الرقم السري",
  "سي في في",
  "الكود السري",
];
const EXPIRY_WORDS = [
  "expiry",
  "expires",
  "expiration",
  "exp",
  "valid thru",
  "valid through",
  "valid until",
  "تاريخ الانتهاء",
  "الانتهاء",
  "ينتهي",
  "تنتهي",
  "انتهاء",
  "الصلاحيه",
  "صلاحيه",
  "صالحه لغايه",
];

/** Index after an announcing phrase that starts at token `i`, if one does. */
function announced(keys: readonly string[], i: number, phrases: readonly string[]): number | undefined {
  for (const phrase of phrases) {
    const parts = phrase.split(" ");
    // The first word may carry «و» («والرمز السري»).
    const first = keys[i] === parts[0] || keys[i] === `و${parts[0]}`;
    if (first && parts.slice(1).every((p, k) => keys[i + 1 + k] === p)) return i + parts.length;
  }
  return undefined;
}

/** A CVV (3–4 digits) or an expiry (month and year, "05/27", a date) within five tokens of its announcement. */
export function announcedSpans(tokens: readonly WrittenToken[]): TokenSpan[] {
  const keys = tokens.map(tokenKey);
  const spans: TokenSpan[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const cvv = announced(keys, i, CVV_WORDS);
    if (cvv !== undefined) {
      for (let j = cvv; j < Math.min(tokens.length, cvv + 5); j++) {
        const d = digitsOf(tokens[j]!);
        if (d === undefined) continue;
        if (d.length === 3 || d.length === 4) spans.push({ type: "cvv", from: j, to: j + 1 });
        break;
      }
    }
    const exp = announced(keys, i, EXPIRY_WORDS);
    if (exp !== undefined) {
      let first: number | undefined;
      let last = 0;
      let digits = "";
      for (let j = exp; j < Math.min(tokens.length, exp + 6) && digits.length < 6; j++) {
        const t = tokens[j]!;
        const d = t.kind === "date" ? "0000" : digitsOf(t, /[ ./-]/g);
        if (d === undefined) {
          if (first !== undefined && !isFiller(t)) break;
          continue;
        }
        first ??= j;
        last = j;
        digits += d;
      }
      if (first !== undefined && digits.length >= 3 && digits.length <= 8)
        spans.push({ type: "expiry", from: first, to: last + 1 });
    }
  }
  return spans;
}
