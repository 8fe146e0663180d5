/**
 * What the file policy hands a recogniser with each piece (the call's decoding options and the
 * pauses inside the piece) and what verbose_json shows of how a searching recogniser decoded it.
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import type { RecognizedText, RecognizeOptions } from "../recognizer.ts";
import type { TranscriptionOptions, TranscriptSegment } from "../types.ts";
import type { DecodePiece } from "./policy.ts";

/** The decoding options a call passes to its recogniser. */
export function recognizeOptions(options: TranscriptionOptions): RecognizeOptions {
  return {
    ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
  };
}

/** Middles of the pauses between a piece's utterances, in seconds from the piece's start. */
export function wordBreaks(piece: DecodePiece): RecognizeOptions {
  const breaks = piece.utterances.slice(1).map((u, i) => (piece.utterances[i]!.end + u.start) / 2 - piece.start);
  return breaks.length > 0 ? { wordBreaks: breaks.map((at) => at / SPEECH_SAMPLE_RATE) } : {};
}

/** A searching recogniser's decoding facts as segment fields. */
export function decodingFacts(result: RecognizedText): Partial<TranscriptSegment> {
  const facts = result.decoding;
  if (facts === undefined) return {};
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    temperature: round(facts.temperature),
    avgLogprob: round(facts.avgLogprob),
    compressionRatio: round(facts.compressionRatio),
  };
}
