/**
 * OpenAI Realtime's `error` server event around an AppError, with Sawt's REST error body as the
 * extra `error.sawt`. One builder for both places that send it: the route, when a session is
 * refused at the open, and the connection, for errors during a session.
 */
import type { AppError } from "../../errors/taxonomy.ts";
import { errorStatusBody } from "../../http/ws-route.ts";

/** What the event says beyond the error itself. */
export interface RealtimeErrorContext {
  /** The event's own id. */
  readonly eventId: string;
  /** OpenAI's error code; `http_<status>` when the error has none of its own. */
  readonly code?: string;
  /** The client event the error answers, if any. */
  readonly clientEventId?: string | null;
  /** The parameter at fault, if any. */
  readonly param?: string | null;
}

/** The `error` event for `error`. */
export function realtimeErrorEvent(error: AppError, context: RealtimeErrorContext): Record<string, unknown> {
  const message =
    error.kind === "validation" && error.fields.length > 0
      ? `${error.fields[0]!.field}: ${error.fields[0]!.message}`
      : error.detail;
  return {
    type: "error",
    event_id: context.eventId,
    error: {
      type: error.status >= 500 ? "server_error" : "invalid_request_error",
      code: context.code ?? `http_${error.status}`,
      message,
      param: context.param ?? null,
      event_id: context.clientEventId ?? null,
      sawt: errorStatusBody(error),
    },
  };
}
