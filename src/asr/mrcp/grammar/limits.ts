/**
 * Bounds on what one grammar may cost. A grammar comes from the IVR over the network (inline in a
 * RECOGNIZE or DEFINE-GRAMMAR), so every dimension that could make compiling or matching it
 * expensive is capped, and passing a cap fails the grammar (005) with a reason naming the cap.
 */

/** Caps for one grammar; every field is optional in what callers pass (see {@link DEFAULT_LIMITS}). */
export interface GrammarLimits {
  /** Largest grammar body in UTF-8 bytes. */
  readonly maxBytes: number;
  /** Most `<rule>` elements. */
  readonly maxRules: number;
  /** Deepest XML element nesting. */
  readonly maxDepth: number;
  /** Most XML elements plus word tokens in the whole grammar (the expanded size of its alternatives). */
  readonly maxNodes: number;
  /** Largest number a `repeat` may name (`repeat="0-50"` is fine at 100; open ends `"1-"` are allowed). */
  readonly maxRepeat: number;
  /** Most characters in one `<tag>`. */
  readonly maxTagChars: number;
  /** Most words of a transcript a grammar is matched against (longer utterances do not match). */
  readonly maxInputTokens: number;
  /** Most matcher steps per grammar and utterance; a grammar that needs more does not match. */
  readonly maxMatchSteps: number;
  /** Deepest nesting of expansions while matching (rule references and recursion count; bounds the stack). */
  readonly maxMatchDepth: number;
}

/** The caps a grammar gets when the caller names none. */
export const DEFAULT_LIMITS: GrammarLimits = {
  maxBytes: 256 * 1024,
  maxRules: 1000,
  maxDepth: 32,
  maxNodes: 50_000,
  maxRepeat: 100,
  maxTagChars: 4096,
  maxInputTokens: 200,
  maxMatchSteps: 200_000,
  maxMatchDepth: 2500,
};

/** The effective caps: the defaults with the caller's fields over them. */
export function resolveLimits(limits: Partial<GrammarLimits> | undefined): GrammarLimits {
  return { ...DEFAULT_LIMITS, ...limits };
}
