/**
 * Deepgram's wire conventions that both Deepgram-compatible doors share (speech to text at
 * src/asr/deepgram/, text to speech at src/tts/deepgram/): where its clients put the key, and its
 * error shapes — the REST body `{err_code, err_msg, request_id}` with `dg-error` and
 * `dg-request-id` headers (the status stays the taxonomy's), and on a WebSocket an `Error`
 * message then a close frame whose code and payload prefix follow Deepgram's table (1003
 * MESSAGE-0000 for a frame of the wrong kind, 1009 BIG-0000 for one over the limit, 1008 DATA-0000
 * for a message or audio Sawt cannot take, 1011 NET-0001 for an idle stream, 1011 NET-0000 for a
 * server failure).
 */
import { keySubprotocol, type KeySources } from "../edge/auth.ts";
import type { AppError } from "../errors/taxonomy.ts";
import type { ProtocolErrorShape } from "./errors.ts";
import { closeCodeFor, errorStatusBody } from "./ws-route.ts";

/** How Deepgram's clients present the key: `Authorization: Token <key>`, or `token, <key>` as subprotocols. */
export const DEEPGRAM_KEY_SOURCES: KeySources = {
  schemes: ["Token"],
  subprotocols: [{ marker: "token" }, { marker: "bearer" }],
};

/**
 * The 101's headers for a client that sent its key as subprotocols (`token, <key>`): the marker it
 * offered is named as the chosen protocol, as a browser's handshake requires.
 */
export function deepgramUpgradeHeaders(headers: Headers): Record<string, string> {
  const protocol = keySubprotocol(headers, DEEPGRAM_KEY_SOURCES);
  return protocol ? { "sec-websocket-protocol": protocol } : {};
}

/** Whether an error is about the request's query parameters (Deepgram's INVALID_QUERY_PARAMETER). */
function isParameterError(error: AppError): boolean {
  return error.fields.some((f) => f.field.startsWith("query."));
}

/** Deepgram's `err_code` for an error. */
export function deepgramErrCode(error: AppError): string {
  if (isParameterError(error)) return "INVALID_QUERY_PARAMETER";
  switch (error.status) {
    case 401:
      return "INVALID_AUTH";
    case 403:
      return "INSUFFICIENT_PERMISSIONS";
    case 404:
      return "NOT_FOUND";
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

/** The message of an error: its detail, with a validation error's first field's problem. */
export function deepgramMessage(error: AppError): string {
  const field = error.kind === "validation" ? error.fields[0] : undefined;
  return field ? `${field.field}: ${field.message}` : error.detail;
}

/** Deepgram's REST error body (a refused upgrade, a refused request); Sawt's own under `sawt`. */
export function deepgramErrorBody(error: AppError, requestId: string): Record<string, unknown> {
  return {
    err_code: deepgramErrCode(error),
    err_msg: deepgramMessage(error),
    request_id: requestId,
    sawt: errorStatusBody(error),
  };
}

/** A Deepgram route's errors over HTTP: Deepgram's body and its `dg-error` / `dg-request-id` headers. */
export const DEEPGRAM_ERRORS: ProtocolErrorShape = {
  body: deepgramErrorBody,
  headers: (error, requestId) => ({
    "dg-request-id": requestId,
    // A header holds Latin-1 only: anything else in the message (Arabic, an ellipsis) becomes "?".
    "dg-error": deepgramMessage(error)
      .slice(0, 200)
      .replace(/[^\x20-\x7e]/g, "?"),
  }),
};

/** What made a socket fail: a frame of the wrong kind, one too big, or what it carried. */
export type DeepgramFault = "message" | "big" | "data";

/**
 * The close frame's payload code: MESSAGE-0000 or BIG-0000 for the frame itself, NET-0001 when the
 * client sent nothing in time, DATA-0000 when what it sent cannot be used, else the `err_code`.
 */
function payloadCode(error: AppError, fault: DeepgramFault): string {
  if (fault === "message") return "MESSAGE-0000";
  if (fault === "big") return "BIG-0000";
  if (error.kind === "timeout") return "NET-0001";
  if (error.status === 400 || error.status === 413 || error.status === 422) return "DATA-0000";
  return error.status >= 500 ? "NET-0000" : deepgramErrCode(error);
}

/** The `Error` message a Deepgram socket sends before its close frame. */
export function deepgramErrorMessage(error: AppError, fault: DeepgramFault = "data"): Record<string, unknown> {
  return {
    type: "Error",
    variant: deepgramErrCode(error),
    description: deepgramMessage(error),
    message: payloadCode(error, fault),
    err_code: deepgramErrCode(error),
    err_msg: deepgramMessage(error),
    sawt: errorStatusBody(error),
  };
}

/**
 * The close frame for an error (none: a normal close): Deepgram's code for the fault, else the
 * WebSocket code for the error (./ws-route.ts `closeCodeFor`; 1011 for an idle stream), with the
 * payload code and the message after it (a close reason holds at most 123 bytes).
 */
export function deepgramCloseFrame(
  error: AppError | undefined,
  fault: DeepgramFault = "data",
): { code: number; reason: string } {
  if (!error) return { code: 1000, reason: "" };
  const code =
    fault === "message" ? 1003 : fault === "big" ? 1009 : error.kind === "timeout" ? 1011 : closeCodeFor(error);
  const reason = `${payloadCode(error, fault)}: ${deepgramMessage(error)}`;
  return {
    code,
    reason: Buffer.from(reason)
      .subarray(0, 123)
      .toString("utf8")
      .replace(/\uFFFD$/, ""),
  };
}
