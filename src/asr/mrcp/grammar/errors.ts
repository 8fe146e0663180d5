/**
 * The two ways a grammar fails, as RFC 6787 §9.4.11 (Completion-Cause) tells them apart for a
 * RECOGNIZE or DEFINE-GRAMMAR:
 *
 * - `004 grammar-load-failure`: Sawt could not obtain a grammar to compile at all: a media type it
 *   does not take, a `builtin:` grammar it does not have, a `session:` grammar never defined, or a
 *   URI it would have to fetch (Sawt fetches nothing: an on-prem appliance makes no outbound calls
 *   on a caller's behalf, so `http:`/`file:` grammars and external `<ruleref uri>`s are refused).
 * - `005 grammar-compilation-failure`: the grammar text arrived but is not a grammar Sawt can use:
 *   malformed XML, a DOCTYPE or entity declaration, an unknown element or attribute value, a rule
 *   reference to an undefined rule, a tag Sawt cannot evaluate, or a size/count/depth bound passed.
 */

/** Which failure the door reports; see the file comment. */
export type GrammarFailure = "load" | "compilation";

/** Longest piece of grammar text a reason quotes. */
const QUOTE_CHARS = 60;

/**
 * A piece of the grammar as a reason quotes it: on one line and short. Reasons may end up in a
 * Completion-Reason header and in logs, so grammar text must never bring a line break (header
 * injection) or a page of markup into them.
 */
export function quote(text: string): string {
  const flat = text.replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029\s]+/gu, " ").trim();
  return flat.length > QUOTE_CHARS ? `${flat.slice(0, QUOTE_CHARS)}…` : flat;
}

/** A grammar that cannot be used; `message` is the reason (one line), safe to log and to show the IVR author. */
export class GrammarError extends Error {
  override readonly name = "GrammarError";
  readonly failure: GrammarFailure;

  constructor(failure: GrammarFailure, reason: string) {
    super(reason.replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/gu, " "));
    this.failure = failure;
  }

  /** The RFC 6787 recogniser Completion-Cause code: 4 (load) or 5 (compilation). */
  get completionCode(): 4 | 5 {
    return this.failure === "load" ? 4 : 5;
  }

  /** The Completion-Cause header value, e.g. `005 grammar-compilation-failure`. */
  get completionCause(): string {
    return this.failure === "load" ? "004 grammar-load-failure" : "005 grammar-compilation-failure";
  }
}

/** Throws a load failure (004). */
export function loadFailure(reason: string): never {
  throw new GrammarError("load", reason);
}

/** Throws a compilation failure (005). */
export function compilationFailure(reason: string): never {
  throw new GrammarError("compilation", reason);
}
