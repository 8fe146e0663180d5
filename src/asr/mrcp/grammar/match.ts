/**
 * Matching a transcript against the active grammars.
 *
 * Both sides are normalised (normalize.ts) and a grammar must derive the WHOLE utterance from its
 * root rule, as SRGS defines a match; fillers around a menu item match only where the grammar
 * allows them with `<ruleref special="GARBAGE"/>`. Sawt does not add GARBAGE on its own: IVR
 * prompts ask for the item alone ("say balance or transfer"), and a grammar that silently took
 * "I do not want a transfer" as `transfer` would send callers down the wrong branch. Authors who
 * want word spotting write it in the grammar, where it is visible.
 *
 * Confidence, in [0, 1]: `asrConfidence × (0.6 + 0.4 × covered)`, where `covered` is the share of
 * the utterance's words matched by grammar words rather than GARBAGE. An utterance that is exactly
 * a grammar phrase scores the ASR's confidence (1 when the door gives none); an item among as many
 * fillers as the grammar allows never falls below 0.6 × the ASR's confidence, so it passes the
 * RFC's default Confidence-Threshold (0.5) when the recogniser was sure of the words. Free-form
 * (`builtin:speech/transcribe`) scores the ASR's confidence and always ranks after a grammar match.
 */
import { interpret } from "./semantics.ts";
import { matchWords } from "../../../text/arabic/fold.ts";
import { parseInput } from "./matcher.ts";
import type { CompiledGrammar, GrammarMatch, SemanticValue, SrgsGrammar } from "./types.ts";

/** What the door knows about the transcript besides its text. */
export interface TranscriptOptions {
  /** The recogniser's confidence in the transcript, in [0, 1] (default 1). */
  readonly asrConfidence?: number;
  /**
   * What a free-form grammar (`builtin:speech/transcribe`) answers: the transcript as the engine's
   * policy wrote it (the redaction floor applied). Grammars match the recogniser's words, the text
   * given: the digits an IVR's own grammar asks for go back to it as matched. Default: the text.
   */
  readonly freeForm?: string;
}

const clamp = (n: number): number => Math.min(1, Math.max(0, Number.isFinite(n) ? n : 0));
const round = (n: number): number => Math.round(n * 1000) / 1000;

/** The instance text of an interpretation: the string itself, or a structure as JSON. */
export function instanceText(value: SemanticValue): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function matchSrgs(grammar: SrgsGrammar, words: readonly string[], asr: number): GrammarMatch | null {
  if (words.length > grammar.limits.maxInputTokens) return null;
  const result = parseInput(grammar, words);
  if (!result.root) return null;
  const interpretation = interpret(result.root);
  const covered = result.words / words.length;
  return {
    grammar,
    instance: instanceText(interpretation),
    interpretation,
    input: words.join(" "),
    mode: "speech",
    confidence: round(asr * (0.6 + 0.4 * covered)),
  };
}

function matchOne(grammar: CompiledGrammar, text: string, words: readonly string[], asr: number): GrammarMatch | null {
  if (grammar.mode !== "voice") return null;
  if (grammar.kind === "srgs") return matchSrgs(grammar, words, asr);
  const transcript = text.replace(/\s+/gu, " ").trim();
  if (transcript === "") return null;
  return {
    grammar,
    instance: transcript,
    interpretation: transcript,
    input: transcript,
    mode: "speech",
    confidence: round(asr),
  };
}

/**
 * Every grammar's match of the transcript, best first: grammar matches before free-form, then by
 * confidence, then by grammar weight, then in the order given. At most one match per grammar; an
 * empty transcript matches nothing. Never throws for a transcript.
 */
export function matchTranscriptNBest(
  grammars: readonly CompiledGrammar[],
  text: string,
  options: TranscriptOptions = {},
): GrammarMatch[] {
  const words = matchWords(text);
  if (words.length === 0) return [];
  const asr = clamp(options.asrConfidence ?? 1);
  const matches = grammars
    .map((grammar, index) => ({
      match: matchOne(grammar, grammar.kind === "srgs" ? text : (options.freeForm ?? text), words, asr),
      index,
    }))
    .filter((entry): entry is { match: GrammarMatch; index: number } => entry.match !== null);
  const freeForm = (m: GrammarMatch): number => (m.grammar.kind === "transcribe" ? 1 : 0);
  matches.sort(
    (a, b) =>
      freeForm(a.match) - freeForm(b.match) ||
      b.match.confidence - a.match.confidence ||
      b.match.grammar.weight - a.match.grammar.weight ||
      a.index - b.index,
  );
  return matches.map((entry) => entry.match);
}

/**
 * How far the transcript got through the speech grammars (RFC 6787 §9.4.15–16, which timer ends
 * the utterance): `complete` when a grammar matches it now, `incomplete` when none does yet but
 * one could with more words, `none` when no words could make it match.
 */
export function speechProgress(grammars: readonly CompiledGrammar[], text: string): "complete" | "incomplete" | "none" {
  const words = matchWords(text);
  let incomplete = false;
  for (const grammar of grammars) {
    if (grammar.mode !== "voice") continue;
    if (grammar.kind !== "srgs") {
      if (words.length > 0) return "complete";
      continue;
    }
    if (words.length > grammar.limits.maxInputTokens) continue;
    const result = parseInput(grammar, words);
    if (result.root) return "complete";
    incomplete ||= result.wantsMore;
  }
  return incomplete ? "incomplete" : "none";
}

/** The best match of the transcript among the grammars (see {@link matchTranscriptNBest}), or null. */
export function matchTranscript(
  grammars: readonly CompiledGrammar[],
  text: string,
  options: TranscriptOptions = {},
): GrammarMatch | null {
  return matchTranscriptNBest(grammars, text, options)[0] ?? null;
}
