/**
 * E-mail addresses, written ("a.b@example.com") or spoken: a local part, "at" / «آت», then a
 * domain of words joined by "dot" / «دوت» / «نقطة» ending in a known top-level domain, e.g.
 * "ahmed dot ali at gmail dot com", «أحمد آت جيميل دوت كوم».
 */
import type { WrittenToken } from "../itn/words.ts";
import { isFiller, type TokenSpan, tokenKey } from "./numbers.ts";

const AT = new Set(["at", "ات", "@"]);
const DOT = new Set(["dot", "دوت", "دات", "نقطه", "."]);
const JOINERS = new Set(["dot", "دوت", "دات", "نقطه", "underscore", "اندرسكور", "dash", "hyphen", "داش", "شرطه"]);
const TLDS = new Set([
  "com",
  "net",
  "org",
  "sa",
  "eg",
  "ae",
  "kw",
  "qa",
  "bh",
  "om",
  "jo",
  "lb",
  "io",
  "co",
  "edu",
  "gov",
  "info",
  "me",
  "uk",
  "كوم",
  "نت",
  "اورج",
  "اورغ",
]);
/** Whether a folded key is a word that joins an e-mail address ("at", "dot", …), so an address may be open there. */
export const isEmailJoiner = (key: string): boolean => AT.has(key) || DOT.has(key) || JOINERS.has(key);

const WRITTEN = /[^\s@]+@[^\s@]+\.[^\s@]+/u;

/** E-mail spans in token indices. */
export function emailSpans(tokens: readonly WrittenToken[]): TokenSpan[] {
  const keys = tokens.map(tokenKey);
  const spans: TokenSpan[] = [];
  for (let k = 0; k < tokens.length; k++) {
    if (WRITTEN.test(tokens[k]!.text)) {
      spans.push({ type: "email", from: k, to: k + 1 });
      continue;
    }
    if (!AT.has(keys[k]!) || k === 0 || isFiller(tokens[k - 1]!)) continue;
    // Domain: word (dot word)+, the last a known top-level domain.
    let end: number | undefined;
    let j = k + 1;
    if (keys[j] !== undefined && !DOT.has(keys[j]!)) {
      while (DOT.has(keys[j + 1] ?? "") && keys[j + 2] !== undefined) {
        j += 2;
        if (TLDS.has(keys[j]!)) end = j + 1;
      }
    }
    if (end === undefined) continue;
    let start = k - 1;
    while (start >= 2 && JOINERS.has(keys[start - 1]!) && !isFiller(tokens[start - 2]!)) start -= 2;
    spans.push({ type: "email", from: start, to: end });
    k = end - 1;
  }
  return spans;
}
