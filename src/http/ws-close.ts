/** How a WebSocket door closes a session that ended. */
import type { AppError } from "../errors/taxonomy.ts";

/**
 * The WebSocket close code for the way a session ended: 1000 normal, 1013 (try again later) when
 * refused busy or not ready, 1011 for a server failure, 1008 (policy) for a limit or a bad client.
 */
export function closeCodeFor(error: AppError | undefined): number {
  if (!error) return 1000;
  if (error.status === 503) return 1013;
  if (error.status >= 500 && error.status !== 504) return 1011;
  return 1008;
}
