/**
 * Bounds on a call door's connections (issue 41; the rule the SIP and MRCP listeners follow, issue
 * 39, in its one home: src/edge/connection-guard.ts): at most `calls.max_connections` open at once
 * per door (0: twice `calls.max_calls`, at least 32), a newcomer over the cap closed at once —
 * never an older connection, so a flood cannot cut a call that is up — and a connection that has
 * not identified itself (AudioSocket: its UUID and first audio; chan_websocket: MEDIA_START)
 * `calls.identify_timeout_s` after it opened is closed. Counted in the call doors' metrics:
 * `sawt_call_connections{door}`, `sawt_calls_refused_total{door,reason="network"|"limit"|"silent"}`.
 */
import type { AppContext } from "../core/context.ts";
import { ConnectionGuard } from "../edge/connection-guard.ts";
import type { CallDoor } from "./events.ts";
import { callMetrics } from "./metrics.ts";

/** Why a call door refused a call or a connection (`sawt_calls_refused_total`'s reasons). */
export type CallRefusal = "network" | "limit" | "key" | "protocol" | "unavailable" | "silent";

/** Counts a refusal by reason. */
export function countRefusal(ctx: AppContext, door: CallDoor, reason: CallRefusal): void {
  callMetrics(ctx).refused.inc({ door, reason });
}

/** The cap on a door's connections under the configuration. */
export function maxConnections(ctx: AppContext): number {
  const { max_connections, max_calls } = ctx.config.calls;
  return max_connections > 0 ? max_connections : Math.max(32, 2 * max_calls);
}

/** A call door's guard; see the file comment. */
export function callDoorGuard(ctx: AppContext, door: CallDoor): ConnectionGuard {
  const guard = new ConnectionGuard(ctx, door, {
    max: maxConnections(ctx),
    identifyMs: ctx.config.calls.identify_timeout_s * 1000,
    report: { refused: (reason) => countRefusal(ctx, door, reason) },
  });
  callMetrics(ctx).connections.set(door, guard);
  return guard;
}
