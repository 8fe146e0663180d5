/**
 * The HTTP edge of the error taxonomy: the headers an {@link AppError} response carries. Its body
 * is the edge's (src/edge/error-body.ts), shared with the WebSocket's error frames; the HTTP app
 * (src/app/http-app.ts) puts the two together, and nothing else builds an error response.
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
