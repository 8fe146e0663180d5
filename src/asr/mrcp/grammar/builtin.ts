/**
 * The builtin grammars Sawt has, named as UniMRCP-based IVRs name them:
 *
 * - `builtin:speech/transcribe`: free-form dictation; the transcript is the result.
 * - `builtin:dtmf/digits`, with the VoiceXML builtin parameters `length`, or `minlength` and/or
 *   `maxlength`, after `?` and separated by `;` (`builtin:dtmf/digits?minlength=3;maxlength=5`;
 *   `&` is taken too). Parameters Sawt does not know are ignored, as VoiceXML platforms do.
 *
 * Any other `builtin:` grammar is a load failure (004) naming the two that exist.
 */
import { compilationFailure, loadFailure, quote } from "./errors.ts";
import type { GrammarLimits } from "./limits.ts";
import type { DigitsGrammar, TranscribeGrammar } from "./types.ts";

/** The free-form grammar's URI. */
export const TRANSCRIBE_URI = "builtin:speech/transcribe";
/** The DTMF digits grammar's URI (without parameters). */
export const DIGITS_URI = "builtin:dtmf/digits";

function lengthParameter(uri: string, name: string, value: string, limits: GrammarLimits): number {
  if (!/^\d+$/u.test(value)) compilationFailure(`${quote(uri)}: ${name}=${quote(value)} must be a whole number`);
  const n = Number(value);
  if (n > limits.maxRepeat)
    compilationFailure(`${quote(uri)}: ${name}=${value} is over the bound of ${limits.maxRepeat} digits`);
  return n;
}

function digitsGrammar(uri: string, query: string, limits: GrammarLimits, weight: number): DigitsGrammar {
  const parameters = new Map<string, string>();
  for (const pair of query.split(/[;&]/u)) {
    if (pair.trim() === "") continue;
    const [name = "", value = ""] = pair.split("=", 2).map((part) => part.trim());
    parameters.set(name.toLowerCase(), value);
  }
  const length = parameters.get("length");
  const min = parameters.get("minlength");
  const max = parameters.get("maxlength");
  if (length !== undefined && (min !== undefined || max !== undefined))
    compilationFailure(`${quote(uri)}: length cannot be combined with minlength or maxlength`);
  const exact = length === undefined ? undefined : lengthParameter(uri, "length", length, limits);
  const minLength = exact ?? (min === undefined ? 1 : lengthParameter(uri, "minlength", min, limits));
  const maxLength =
    exact ?? (max === undefined ? Number.POSITIVE_INFINITY : lengthParameter(uri, "maxlength", max, limits));
  if (maxLength < minLength) compilationFailure(`${quote(uri)}: maxlength is below minlength`);
  if (maxLength === 0) compilationFailure(`${quote(uri)}: a digits grammar must take at least one digit`);
  return {
    kind: "digits",
    mode: "dtmf",
    uri,
    weight,
    language: undefined,
    minLength: Math.max(minLength, 1),
    maxLength,
  };
}

/** Compiles a `builtin:` URI; throws a load failure for one Sawt does not have. */
export function compileBuiltin(uri: string, limits: GrammarLimits, weight: number): TranscribeGrammar | DigitsGrammar {
  const question = uri.indexOf("?");
  const path = (question < 0 ? uri : uri.slice(0, question)).trim().toLowerCase();
  const query = question < 0 ? "" : uri.slice(question + 1);
  if (path === TRANSCRIBE_URI) return { kind: "transcribe", mode: "voice", uri, weight, language: undefined };
  if (path === DIGITS_URI) return digitsGrammar(uri, query, limits, weight);
  return loadFailure(`${quote(uri)}: Sawt has no such builtin grammar (it has ${TRANSCRIBE_URI} and ${DIGITS_URI})`);
}
