/**
 * Deepgram's `/v1/listen` messages and error shapes, field for field as developers.deepgram.com
 * and its SDKs define them: `Results` (with the `metadata.request_id` LiveKit's plugin requires),
 * `SpeechStarted`, `UtteranceEnd`, `Metadata`, the `Error` message, the REST error body
 * `{err_code, err_msg, request_id}` and the close frame's code and payload (`DATA-0000`,
 * `NET-0001`). Sawt extension, as an extra field: `sawt` (the REST error body) on errors.
 */
import { createHash } from "node:crypto";
import type { TranscriptWord } from "../../core/asr.ts";
import { VERSION } from "../../version.ts";

/** A word of a result. */
export interface DeepgramWord {
  readonly word: string;
  readonly start: number;
  readonly end: number;
  readonly confidence: number;
  readonly punctuated_word: string;
  readonly speaker?: number;
}

/** What a message says about the request and the model asked for. */
export interface RequestFacts {
  readonly requestId: string;
  readonly model: string;
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

/** Model ids already derived (every Results message names its model: hashed once per name). */
const uuids = new Map<string, string>();

/** A stable UUID-shaped id for a model name (Deepgram keys `model_info` by model UUID). */
export function modelUuid(model: string): string {
  let uuid = uuids.get(model);
  if (uuid === undefined) {
    const hex = createHash("sha256").update(`sawt:${model}`).digest("hex");
    uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
    // Names are the clients' (any string): the cache stays small whatever they send.
    if (uuids.size >= 256) uuids.clear();
    uuids.set(model, uuid);
  }
  return uuid;
}

/** `model_info` of one model: its name as asked, Sawt's version. */
function modelInfo(model: string) {
  return { name: model, version: VERSION, arch: "sawt" };
}

/**
 * The words of a result: the recogniser's timed words, else the text's words spread evenly over
 * `[start, end]` (an estimate: partials, and recognisers that do not time words, have no times).
 * `word` and `punctuated_word` are both the written word Sawt answers.
 */
export function resultWords(
  text: string,
  start: number,
  end: number,
  options: { timed?: readonly TranscriptWord[]; confidence: number; speaker?: number },
): DeepgramWord[] {
  const speaker = options.speaker !== undefined ? { speaker: options.speaker } : {};
  const word = (w: string, from: number, to: number): DeepgramWord => ({
    word: w,
    start: round(from),
    end: round(to),
    confidence: options.confidence,
    punctuated_word: w,
    ...speaker,
  });
  if (options.timed && options.timed.length > 0) return options.timed.map((w) => word(w.word, w.start, w.end));
  const words = text.split(/\s+/).filter((w) => w !== "");
  const step = words.length > 0 ? (end - start) / words.length : 0;
  return words.map((w, i) => word(w, start + i * step, start + (i + 1) * step));
}

/** One `Results` message. */
export function resultsMessage(
  facts: RequestFacts,
  result: {
    readonly channel: number;
    readonly channels: number;
    readonly start: number;
    readonly end: number;
    readonly isFinal: boolean;
    readonly speechFinal: boolean;
    readonly fromFinalize: boolean;
    readonly transcript: string;
    readonly confidence: number;
    readonly words: readonly DeepgramWord[];
  },
): Record<string, unknown> {
  return {
    type: "Results",
    channel_index: [result.channel, result.channels],
    duration: round(Math.max(0, result.end - result.start)),
    start: round(result.start),
    is_final: result.isFinal,
    speech_final: result.speechFinal,
    from_finalize: result.fromFinalize,
    channel: {
      alternatives: [{ transcript: result.transcript, confidence: result.confidence, words: result.words }],
    },
    metadata: {
      request_id: facts.requestId,
      model_info: modelInfo(facts.model),
      model_uuid: modelUuid(facts.model),
    },
  };
}

/** `SpeechStarted` (vad_events): `timestamp` is where the speech starts, in seconds. */
export function speechStartedMessage(channel: number, channels: number, timestamp: number): Record<string, unknown> {
  return { type: "SpeechStarted", channel: [channel, channels], timestamp: round(timestamp) };
}

/** `UtteranceEnd` (utterance_end_ms). */
export function utteranceEndMessage(channel: number, channels: number, lastWordEnd: number): Record<string, unknown> {
  return { type: "UtteranceEnd", channel: [channel, channels], last_word_end: round(lastWordEnd) };
}

/** The request's summary: the live door's last message, and the pre-recorded answer's `metadata`. */
export function requestMetadata(
  facts: RequestFacts,
  summary: { readonly sha256: string; readonly created: Date; readonly duration: number; readonly channels: number },
): Record<string, unknown> {
  const uuid = modelUuid(facts.model);
  return {
    transaction_key: "deprecated",
    request_id: facts.requestId,
    sha256: summary.sha256,
    created: summary.created.toISOString(),
    duration: round(summary.duration),
    channels: summary.channels,
    models: [uuid],
    model_info: { [uuid]: modelInfo(facts.model) },
  };
}
