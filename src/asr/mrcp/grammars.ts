/**
 * The grammar pieces the speechrecog door uses: SRGS and builtin-URI compilation, transcript and
 * digit matching, NLSML. One line to switch at merge: the source becomes `./grammar/index.ts`
 * (src/asr/mrcp/grammar/, written in parallel) and ./grammar-standin.ts is deleted.
 */
export { compileGrammar, matchDigits, matchTranscript, nlsmlResult, type CompiledGrammar } from "./grammar-standin.ts";
