/**
 * Sawt's errors in Deepgram's shapes: REST bodies `{"err_code","err_msg","request_id"}` (with the
 * taxonomy's status), and on a WebSocket a close frame whose code and reason prefix follow
 * Deepgram's table (1003 MESSAGE-0000 for a binary frame, 1008 DATA-0000 for a message Sawt cannot
 * take, 1009 BIG-0000 for text over the limit, 1011 NET-0000 for a server failure, NET-0001 for an
 * idle stream), after an `Error` message carrying the same body.
 */
import type { AppError } from "../../errors/taxonomy.ts";

/** Deepgram's `err_code` for each kind of refusal. */
const CODES: Partial<Record<AppError["kind"], string>> = {
  unauthorized: "INVALID_AUTH",
  forbidden: "INSUFFICIENT_PERMISSIONS",
  rate_limited: "TOO_MANY_REQUESTS",
  not_found: "NOT_FOUND",
  payload_too_large: "PAYLOAD_TOO_LARGE",
  unavailable: "SERVICE_UNAVAILABLE",
  timeout: "REQUEST_TIMEOUT",
  internal: "INTERNAL_SERVER_ERROR",
};

/** The message of an error, with a validation error's fields. */
function message(error: AppError): string {
  if (error.fields.length === 0) return error.detail;
  return `${error.detail}: ${error.fields.map((f) => `${f.field}: ${f.message}`).join("; ")}`;
}

/** Deepgram's REST error body. */
export function deepgramBody(error: AppError, requestId: string | undefined): Record<string, unknown> {
  return { err_code: CODES[error.kind] ?? "Bad Request", err_msg: message(error), request_id: requestId ?? "" };
}

/** The error answered in Deepgram's REST shape (status and headers stay the taxonomy's). */
export function deepgramError(error: AppError, requestId: string | undefined): AppError {
  return error.inShape(deepgramBody(error, requestId), requestId ? { "dg-request-id": requestId } : {});
}

/** What a WebSocket error is closed with: Deepgram's close code and a reason it prefixes. */
export function deepgramClose(error: AppError, cause: "message" | "data" | "big" = "data"): [number, string] {
  const reason = (prefix: string) => `${prefix}: ${message(error)}`.slice(0, 120);
  if (cause === "message") return [1003, reason("MESSAGE-0000")];
  if (cause === "big") return [1009, reason("BIG-0000")];
  if (error.kind === "timeout") return [1011, reason("NET-0001")];
  if (error.status >= 500) return [1011, reason("NET-0000")];
  return [1008, reason("DATA-0000")];
}
