/**
 * SRGS grammars for the MRCP recogniser: compile what an IVR sends, match transcripts and DTMF
 * keys against it, and write the NLSML result. Pure: no sockets, no engine; docs/mrcp-grammars.md.
 */
export { compileGrammar, compileGrammars, isGrammarMediaType, type CompileOptions } from "./compile.ts";
export { DIGITS_URI, TRANSCRIBE_URI } from "./builtin.ts";
export { digitsProgress, matchDigits, type DigitsProgress } from "./dtmf.ts";
export { GrammarError, type GrammarFailure } from "./errors.ts";
export { DEFAULT_LIMITS, type GrammarLimits } from "./limits.ts";
export { matchTranscript, matchTranscriptNBest, speechProgress, type TranscriptOptions } from "./match.ts";
export {
  escapeXml,
  nlsmlFromMatches,
  nlsmlNoInput,
  nlsmlNoMatch,
  nlsmlResult,
  type NlsmlInterpretation,
} from "./nlsml.ts";
export type {
  CompiledGrammar,
  DigitsGrammar,
  GrammarMatch,
  SemanticValue,
  SrgsGrammar,
  TranscribeGrammar,
} from "./types.ts";
