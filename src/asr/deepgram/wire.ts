/**
 * Deepgram's `/v1/listen` messages and error shapes, field for field as developers.deepgram.com
 * and its SDKs define them: `Results` (with the `metadata.request_id` LiveKit's plugin requires),
 * `SpeechStarted`, `UtteranceEnd`, `Metadata`, the `Error` message, the REST error body
 * `{err_code, err_msg, request_id}` and the close frame's code and payload (`DATA-0000`,
 * `NET-0001`). Sawt extension, as an extra field: `sawt` (the REST error body) on errors.
 */
import { createHash } from "node:crypto";
import type { TranscriptWord } from "../../core/asr.ts";
import type { AppError } from "../../errors/taxonomy.ts";
import { closeCodeFor, errorStatusBody } from "../../http/ws-route.ts";
import type { ProtocolErrorShape } from "../../http/errors.ts";
import { VERSION } from "../../version.ts";
import { isParameterError } from "./params.ts";

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

/** Deepgram's `err_code` for an error. */
function errCode(error: AppError): string {
  if (isParameterError(error)) return "INVALID_QUERY_PARAMETER";
  switch (error.status) {
    case 401:
      return "INVALID_AUTH";
    case 403:
      return "INSUFFICIENT_PERMISSIONS";
    case 413:
      return "PAYLOAD_TOO_LARGE";
    case 429:
      return "TOO_MANY_REQUESTS";
    case 503:
      return "SERVICE_UNAVAILABLE";
    case 504:
      return "TIMEOUT";
    default:
      return error.status >= 500 ? "INTERNAL_SERVER_ERROR" : "Bad Request";
  }
}

/** The message of an error: its detail, or its first field's problem. */
function messageOf(error: AppError): string {
  const field = error.kind === "validation" ? error.fields[0] : undefined;
  return field ? `${field.field}: ${field.message}` : error.detail;
}

/** Deepgram's REST error body (a refused upgrade, a refused pre-recorded request). */
export function errorBody(error: AppError, requestId: string): Record<string, unknown> {
  return { err_code: errCode(error), err_msg: messageOf(error), request_id: requestId, sawt: errorStatusBody(error) };
}

/** `/v1/listen`'s errors over HTTP: Deepgram's body and its `dg-error` / `dg-request-id` headers. */
export const DEEPGRAM_ERRORS: ProtocolErrorShape = {
  body: errorBody,
  headers: (error, requestId) => ({
    "dg-request-id": requestId,
    // A header holds Latin-1 only: anything else in the message (Arabic, an ellipsis) becomes "?".
    "dg-error": messageOf(error)
      .slice(0, 200)
      .replace(/[^\x20-\x7e]/g, "?"),
  }),
};

/**
 * The close frame's payload code: NET-0001 when the client sent nothing in time, DATA-0000 when
 * what it sent cannot be used (bad frames, audio over the limits), else the error's `err_code`.
 */
function payloadCode(error: AppError): string {
  if (error.kind === "timeout") return "NET-0001";
  if (error.status === 400 || error.status === 413 || error.status === 422) return "DATA-0000";
  return errCode(error);
}

/** The `Error` message sent before the close frame of a failed stream. */
export function errorMessage(error: AppError): Record<string, unknown> {
  return {
    type: "Error",
    variant: errCode(error),
    description: messageOf(error),
    message: payloadCode(error),
    sawt: errorStatusBody(error),
  };
}

/**
 * The close frame for an error: Deepgram's 1011 NET-0001 when no audio or message came in time,
 * else the WebSocket code for the error (src/http/ws-route.ts `closeCodeFor`), its payload code and the
 * message after it (a close reason holds at most 123 bytes).
 */
export function closeFrame(error: AppError | undefined): { code: number; reason: string } {
  if (!error) return { code: 1000, reason: "" };
  const code = error.kind === "timeout" ? 1011 : closeCodeFor(error);
  const reason = `${payloadCode(error)}: ${messageOf(error)}`;
  return {
    code,
    reason: Buffer.from(reason)
      .subarray(0, 123)
      .toString("utf8")
      .replace(/\uFFFD$/, ""),
  };
}
