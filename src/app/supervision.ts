/**
 * Ties a running Sawt to its service manager (systemd `Type=notify`, see systemd/sawt.service):
 * READY=1 once the engines have settled, STATUS= lines for `systemctl status`, WATCHDOG=1 while the
 * service can still serve, STOPPING=1 when shutdown begins. Everything is a no-op outside systemd.
 */
import type { EngineSnapshot } from "../serving/engine-state.ts";
import { createNotifier, startWatchdog, watchdogIntervalMs, type Notifier } from "../serving/sd-notify.ts";
import type { RunningServer } from "./server.ts";

/** The service-manager side of a running server. */
export interface Supervision {
  readonly notifier: Notifier;
  /** Tells systemd shutdown has begun (before draining, so it waits up to TimeoutStopSec). */
  stopping(): void;
  /** Stops the watchdog. */
  close(): void;
}

function enabled(snapshot: EngineSnapshot): boolean {
  return snapshot.details.enabled !== false;
}

/** One line for `systemctl status`: what serves and what does not (never request content). */
export function describeEngines(snapshots: readonly EngineSnapshot[]): string {
  const parts = snapshots.map((s) =>
    enabled(s) ? `${s.name} ${s.status}${s.reason ? ` (${s.reason})` : ""}` : `${s.name} disabled`,
  );
  const serving = snapshots.filter(enabled).every((s) => s.status === "ready");
  return `${serving ? "serving" : "degraded"}: ${parts.join(", ")}`;
}

/**
 * Attaches the notifier to `server`. The watchdog is withheld when an enabled engine that had
 * become ready has since failed: a restart may cure that (a lost GPU context), whereas an engine that
 * never came up would only fail again, so it is reported (health 503, STATUS) instead of looped.
 */
export function superviseServer(
  server: RunningServer,
  options: { env?: Record<string, string | undefined>; notifier?: Notifier } = {},
): Supervision {
  const env = options.env ?? process.env;
  const notifier = options.notifier ?? createNotifier({ env });
  const { log } = server.ctx;
  if (!notifier.enabled) return { notifier, stopping: () => {}, close: () => {} };

  const engines = [server.ctx.engines.tts, server.ctx.engines.asr];
  const everReady = new Set<string>();
  for (const engine of engines) {
    if (engine.isReady()) everReady.add(engine.name);
    engine.onChange((snapshot) => {
      if (snapshot.status === "ready") everReady.add(snapshot.name);
    });
  }
  const verdict = (): { ok: true } | { ok: false; reason: string } => {
    const regressed = engines
      .map((e) => e.snapshot())
      .find((s) => enabled(s) && s.status === "failed" && everReady.has(s.name));
    return regressed
      ? { ok: false, reason: `${regressed.name} engine failed after being ready: ${regressed.reason ?? "unknown"}` }
      : { ok: true };
  };

  const interval = watchdogIntervalMs(env);
  const stopWatchdog =
    interval === undefined
      ? () => {}
      : startWatchdog(notifier, interval, verdict, (reason) => log.error("watchdog withheld", { reason }));

  let stopped = false;
  // Ready once the engines settle, whatever the outcome: a failed engine is reported in STATUS= and
  // health, where waiting would only make `systemctl start` time out.
  const ready = () => {
    if (stopped) return;
    const status = describeEngines(engines.map((e) => e.snapshot()));
    notifier.notify(`READY=1\nSTATUS=${status}`);
    log.info("notified systemd", {
      state: "READY=1",
      status,
      backend: notifier.backend,
      watchdog_ms: interval ?? null,
    });
  };
  server.enginesSettled.then(ready, ready);
  return {
    notifier,
    stopping() {
      stopped = true;
      notifier.notify("STOPPING=1\nSTATUS=draining");
    },
    close: stopWatchdog,
  };
}
