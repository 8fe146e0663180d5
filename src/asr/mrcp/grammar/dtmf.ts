/**
 * Matching DTMF keys (RFC 4733 telephone-events the door collected) against a DTMF grammar:
 * `builtin:dtmf/digits` (0–9, within its length bounds) or an SRGS grammar with `mode="dtmf"`
 * (whose tokens are keys). A trailing `#` is taken as the caller's "done" key when the grammar
 * does not itself take it (the usual DTMF-Term-Char), so "1234#" matches a 4-digit grammar.
 */
import { instanceText } from "./match.ts";
import { type ParseResult, parseInput } from "./matcher.ts";
import { interpret } from "./semantics.ts";
import type { CompiledGrammar, DigitsGrammar, GrammarMatch, SrgsGrammar } from "./types.ts";

/** Where a key sequence stands against a grammar. */
export interface DigitsProgress {
  /** The match of the keys so far, or null. */
  readonly match: GrammarMatch | null;
  /** True when more keys could still give a (longer) match: the door keeps collecting until its timeouts. */
  readonly canExtend: boolean;
}

const KEYS = /^[0-9*#A-D]*$/u;

function digitsMatch(grammar: DigitsGrammar, keys: string): DigitsProgress {
  const digits = keys.endsWith("#") ? keys.slice(0, -1) : keys;
  const terminated = digits !== keys;
  if (!/^\d*$/u.test(digits)) return { match: null, canExtend: false };
  const fits = digits.length >= grammar.minLength && digits.length <= grammar.maxLength;
  const match: GrammarMatch | null = fits
    ? { grammar, instance: digits, interpretation: digits, input: digits, mode: "dtmf", confidence: 1 }
    : null;
  return { match, canExtend: !terminated && digits.length < grammar.maxLength };
}

function srgsMatch(grammar: SrgsGrammar, keys: string): DigitsProgress {
  if (keys.length > grammar.limits.maxInputTokens) return { match: null, canExtend: false };
  const toMatch = (result: ParseResult, input: string): GrammarMatch | null => {
    if (!result.root) return null;
    const interpretation = interpret(result.root);
    return { grammar, instance: instanceText(interpretation), interpretation, input, mode: "dtmf", confidence: 1 };
  };
  const whole = parseInput(grammar, [...keys]);
  if (whole.root || !keys.endsWith("#")) return { match: toMatch(whole, keys), canExtend: whole.wantsMore };
  // A "#" the grammar does not take is the caller's end-of-input key: no more keys will come.
  const keysBefore = keys.slice(0, -1);
  return { match: toMatch(parseInput(grammar, [...keysBefore]), keysBefore), canExtend: false };
}

/**
 * Where `keys` (e.g. "1234#") stand against a DTMF grammar; a voice grammar takes no keys. Keys
 * other than 0–9, *, #, A–D never match; no keys yet match nothing and can be extended.
 */
export function digitsProgress(grammar: CompiledGrammar, keys: string): DigitsProgress {
  const normalized = keys.replace(/\s+/gu, "").toUpperCase();
  if (grammar.mode !== "dtmf" || !KEYS.test(normalized)) return { match: null, canExtend: false };
  if (normalized === "") return { match: null, canExtend: true };
  return grammar.kind === "digits" ? digitsMatch(grammar, normalized) : srgsMatch(grammar as SrgsGrammar, normalized);
}

/** The match of `keys` against a DTMF grammar, or null (see {@link digitsProgress}). */
export function matchDigits(grammar: CompiledGrammar, keys: string): GrammarMatch | null {
  return digitsProgress(grammar, keys).match;
}
