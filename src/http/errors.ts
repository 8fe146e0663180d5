/**
 * The HTTP edge of the error taxonomy: the headers an {@link AppError} response carries, and the
 * body's shape. The body is the edge's (src/edge/error-body.ts), shared with the WebSocket's error
 * frames, unless the route answers in another protocol's shape ({@link ProtocolErrorShape}: a borrowed
 * protocol's clients read its owner's error body). The HTTP app (src/app/http-app.ts) puts them
 * together, and nothing else builds an error response.
 */
import type { AppError } from "../errors/taxonomy.ts";

/** Headers an error response carries besides Content-Type. */
export function errorHeaders(error: AppError): Record<string, string> {
  const headers: Record<string, string> = { ...error.headers };
  if (error.status === 401) headers["www-authenticate"] = "Bearer";
  if (error.status === 429) headers["retry-after"] = String(error.retryAfter ?? 60);
  else if (error.retryAfter !== undefined) headers["retry-after"] = String(error.retryAfter);
  return headers;
}

/**
 * The error body of a route that speaks another protocol (Deepgram's `{err_code, err_msg,
 * request_id}`), with headers of its own; the status and {@link errorHeaders} stay the taxonomy's.
 */
export interface ProtocolErrorShape {
  body(error: AppError, requestId: string): Record<string, unknown>;
  headers?(error: AppError, requestId: string): Record<string, string>;
}

// Kept beside the request: the app's error hook runs before any route-local one, and a route (or a
// WebSocket upgrade) may fail before its handler, so the shape is named as soon as the route is known.
const shapes = new WeakMap<Request, ProtocolErrorShape>();

/** Answers `request`'s errors in `shape` (call it before anything that may throw). */
export function answerErrorsAs(request: Request, shape: ProtocolErrorShape): void {
  shapes.set(request, shape);
}

/** The body and extra headers of `error` answering `request`. */
export function errorAnswer(
  error: AppError,
  request: Request,
  requestId: string,
  standard: (error: AppError) => Record<string, unknown>,
): { body: Record<string, unknown>; headers: Record<string, string> } {
  const shape = shapes.get(request);
  if (!shape) return { body: standard(error), headers: {} };
  return { body: shape.body(error, requestId), headers: shape.headers?.(error, requestId) ?? {} };
}
