/**
 * Bounds on a call door's connections (issue 41; the same rule the SIP and MRCP listeners follow,
 * issue 39): at most `calls.max_connections` open at once per door (0: twice `calls.max_calls`, at
 * least 32), a newcomer over the cap closed at once — never an older connection, so a flood
 * cannot cut a call that is up — and a connection that has not identified itself (AudioSocket:
 * its UUID and first audio; chan_websocket: MEDIA_START) `calls.identify_timeout_s` after it
 * opened is closed. Both are counted (`sawt_calls_refused_total{reason="limit"|"silent"}`).
 */
import type { AppContext } from "../core/context.ts";
import { callMetrics, countOn } from "./metrics.ts";
import type { CallDoor } from "./events.ts";

/** The cap on a door's connections under the configuration. */
export function maxConnections(ctx: AppContext): number {
  const { max_connections, max_calls } = ctx.config.calls;
  return max_connections > 0 ? max_connections : Math.max(32, 2 * max_calls);
}

/** One door's open connections; see the file comment. */
export class DoorConnections {
  private count = 0;

  constructor(
    private readonly ctx: AppContext,
    readonly door: CallDoor,
  ) {}

  /** Connections open now. */
  get open(): number {
    return this.count;
  }

  /** Whether one more may open (counted as refused when not). */
  hasRoom(): boolean {
    if (this.count < maxConnections(this.ctx)) return true;
    this.refused("limit");
    return false;
  }

  /**
   * Takes a place for a connection; `close` is called (once) when it stays unidentified past the
   * timeout. Returns its place: `identified()` stops the timer, `release()` gives the place back
   * (idempotent).
   */
  take(close: () => void): { identified(): void; release(): void } {
    this.count++;
    countOn(callMetrics(this.ctx).connections, this.door, 1);
    const timer = setTimeout(() => {
      this.refused("silent");
      close();
    }, this.ctx.config.calls.identify_timeout_s * 1000);
    let held = true;
    return {
      identified: () => clearTimeout(timer),
      release: () => {
        clearTimeout(timer);
        if (!held) return;
        held = false;
        this.count--;
        countOn(callMetrics(this.ctx).connections, this.door, -1);
      },
    };
  }

  /** Counts a refusal by reason. */
  refused(reason: "network" | "limit" | "key" | "protocol" | "unavailable" | "silent"): void {
    callMetrics(this.ctx).refused.inc({ door: this.door, reason });
  }
}
