/**
 * Recent failed HTTP requests, for the console's Operations page: a bounded ring per context that
 * keeps the time, method, route pattern, status and error kind of each 4xx/5xx answer, and
 * nothing else — never a path with its ids filled in, a query, a body, user text or a key.
 */
import type { AppContext } from "../core/context.ts";

/** One failed request, as kept. */
export interface RecentError {
  readonly at: string;
  readonly method: string;
  /** The route pattern (`/v1/tts/voices/:voice_id`), or `unmatched`. */
  readonly route: string;
  readonly status: number;
  readonly kind: string;
}

const CAPACITY = 200;
// The kind names of docs' error taxonomy, by status; anything else is named by its class.
const KIND_BY_STATUS: Readonly<Record<number, string>> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  413: "payload_too_large",
  422: "validation",
  426: "upgrade_required",
  429: "rate_limited",
  499: "client_closed",
  500: "internal",
  501: "not_implemented",
  503: "unavailable",
  504: "timeout",
};

const rings = new WeakMap<AppContext, RecentError[]>();

/** The observer that records `ctx`'s failed requests. */
export function recentErrorObserver(
  ctx: AppContext,
): (request: { readonly method: string; readonly route: string; readonly status: number }) => void {
  return ({ method, route, status }) => {
    if (status < 400) return;
    let ring = rings.get(ctx);
    if (!ring) rings.set(ctx, (ring = []));
    const kind = KIND_BY_STATUS[status] ?? (status >= 500 ? "server_error" : "client_error");
    ring.push({ at: new Date().toISOString(), method, route, status, kind });
    if (ring.length > CAPACITY) ring.splice(0, ring.length - CAPACITY);
  };
}

/** The recent errors (newest first) and their counts by kind. */
export function recentErrors(ctx: AppContext): { recent: RecentError[]; by_kind: Record<string, number> } {
  const ring = rings.get(ctx) ?? [];
  const byKind: Record<string, number> = {};
  for (const e of ring) byKind[e.kind] = (byKind[e.kind] ?? 0) + 1;
  return { recent: [...ring].reverse().slice(0, 50), by_kind: byKind };
}
