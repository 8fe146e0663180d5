/**
 * The compiled form of a grammar and of a match. A compiled SRGS grammar is a tree of
 * {@link Expansion}s per rule; words are stored normalised (normalize.ts) for matching and as the
 * author wrote them for the default interpretation.
 */
import type { GrammarLimits } from "./limits.ts";

/** One word of the grammar. */
export interface TokenExpansion {
  readonly type: "token";
  /** The word after Arabic-aware normalisation: what the transcript's words are compared with. */
  readonly word: string;
  /** The word as the grammar spells it (diacritics and all): what an untagged match returns. */
  readonly text: string;
}

/** Expansions in order. */
export interface SequenceExpansion {
  readonly type: "sequence";
  readonly items: readonly Expansion[];
}

/** `<one-of>`: one of the choices; `weight` (SRGS item weight, default 1) breaks ties between parses. */
export interface AlternativesExpansion {
  readonly type: "alternatives";
  readonly choices: readonly { readonly expansion: Expansion; readonly weight: number }[];
}

/** `<item repeat>`: the body `min` to `max` times (`max` is Infinity for an open end such as `"1-"`). */
export interface RepeatExpansion {
  readonly type: "repeat";
  readonly body: Expansion;
  readonly min: number;
  readonly max: number;
}

/** `<ruleref uri="#id">`: a rule of the same grammar. */
export interface RuleRefExpansion {
  readonly type: "ruleref";
  readonly rule: string;
}

/**
 * `<ruleref special>`: NULL matches nothing (always passes), VOID never matches, GARBAGE matches any
 * run of words, none included (the fillers around a menu item).
 */
export interface SpecialExpansion {
  readonly type: "special";
  readonly name: "NULL" | "VOID" | "GARBAGE";
}

/** `<tag>`: a semantic interpretation statement list, run when the parse passes it. */
export interface TagExpansion {
  readonly type: "tag";
  /** The tag text as written. */
  readonly text: string;
  readonly statements: readonly TagStatement[];
}

/** One node of a rule. */
export type Expansion =
  | TokenExpansion
  | SequenceExpansion
  | AlternativesExpansion
  | RepeatExpansion
  | RuleRefExpansion
  | SpecialExpansion
  | TagExpansion;

/** A value a tag expression yields: a string literal, a rule's value, or one of its properties. */
export type TagExpression =
  | { readonly kind: "literal"; readonly value: string }
  | { readonly kind: "rule"; readonly rule: string | "latest"; readonly path: readonly string[] };

/** `out = …` (path empty) or `out.a.b = …`. */
export interface TagStatement {
  readonly path: readonly string[];
  readonly value: TagExpression;
}

/** What a match means: a string, or properties (`out.action = "transfer"`), nested as rules nest. */
export type SemanticValue = string | { readonly [property: string]: SemanticValue };

interface GrammarBase {
  /** The URI the NLSML result names (`grammar="…"`): `session:<Content-Id>`, the builtin URI, or "". */
  readonly uri: string;
  /** Grammar weight from a `text/grammar-ref-list` (default 1); ranks matches of different grammars. */
  readonly weight: number;
  /** `xml:lang` of an SRGS grammar, as written (e.g. `ar-SA`); undefined when none was given. */
  readonly language: string | undefined;
}

/** A compiled SRGS grammar (`application/srgs+xml`). */
export interface SrgsGrammar extends GrammarBase {
  readonly kind: "srgs";
  readonly mode: "voice" | "dtmf";
  /** The rule a match starts from: the `root` attribute, else the first rule. */
  readonly root: string;
  readonly rules: ReadonlyMap<string, Expansion>;
  /** `semantics/1.0-literals`: every tag is a string literal, not a statement. */
  readonly tagFormat: string | undefined;
  /** The caps it was compiled under; matching uses `maxInputTokens` and `maxMatchSteps`. */
  readonly limits: GrammarLimits;
}

/** `builtin:speech/transcribe`: free-form dictation, the transcript is the result. */
export interface TranscribeGrammar extends GrammarBase {
  readonly kind: "transcribe";
  readonly mode: "voice";
}

/** `builtin:dtmf/digits`: 0–9 keys, optionally bounded in count. */
export interface DigitsGrammar extends GrammarBase {
  readonly kind: "digits";
  readonly mode: "dtmf";
  readonly minLength: number;
  /** Infinity when unbounded. */
  readonly maxLength: number;
}

/** What {@link compileGrammar} returns; `kind` tells them apart, `mode` says which input it takes. */
export type CompiledGrammar = SrgsGrammar | TranscribeGrammar | DigitsGrammar;

/** A grammar matched an utterance or a key sequence. */
export interface GrammarMatch {
  readonly grammar: CompiledGrammar;
  /**
   * The interpretation as text: a tag's string output, or the grammar's matched words (as the
   * grammar spells them), or the transcript for free-form; a structured output as JSON text.
   */
  readonly instance: string;
  /** The interpretation itself: pass it to nlsmlResult so that properties become XML elements. */
  readonly interpretation: SemanticValue;
  /** What was heard: the utterance's normalised words (the transcript itself for free-form), or the keys. */
  readonly input: string;
  readonly mode: "speech" | "dtmf";
  /** In [0, 1]; see match.ts for how it is computed. */
  readonly confidence: number;
}
