/**
 * Finds what to redact in written tokens and in which order: e-mail addresses, IBANs, an
 * announced CVV or expiry date, then chains of digits (card before Saudi ID before phone). A
 * span already taken is never part of another, and only the requested types are looked for.
 */
import type { WrittenToken } from "../itn/words.ts";
import type { RedactionType } from "./classes.ts";
import { emailSpans } from "./email.ts";
import { announcedSpans, ibanSpans, numberChains, type TokenSpan } from "./numbers.ts";

/** The spans (token indices, in order, not overlapping) of the requested types in `tokens`. */
export function findRedactions(tokens: readonly WrittenToken[], types: ReadonlySet<RedactionType>): TokenSpan[] {
  if (types.size === 0) return [];
  const taken = new Array<boolean>(tokens.length).fill(false);
  const chosen: TokenSpan[] = [];
  const candidates = [emailSpans(tokens), ibanSpans(tokens), announcedSpans(tokens), numberChains(tokens)];
  for (const span of candidates.flat()) {
    if (!types.has(span.type)) continue;
    let free = true;
    for (let i = span.from; i < span.to; i++) free &&= !taken[i];
    if (!free) continue;
    for (let i = span.from; i < span.to; i++) taken[i] = true;
    chosen.push(span);
  }
  return chosen.sort((a, b) => a.from - b.from);
}
