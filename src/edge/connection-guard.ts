/**
 * Bounds on a door's connections (issue 39), the one home of the rule: the SIP port over TCP, the
 * MRCP control port, the AudioSocket port and chan_websocket's sockets (src/calls/). Without them,
 * 400 connections that never send a byte were all held a minute later. A TCP door hands each
 * accepted socket to its guard ({@link ConnectionGuard.accept}); a door whose connections are not
 * sockets (a WebSocket) asks for room and holds a place ({@link ConnectionGuard.hasRoom},
 * {@link ConnectionGuard.hold}):
 *
 * - at most `max` connections are open at once; one more is closed at once and counted
 *   (`sawt_tcp_connections_refused_total{reason="limit"}`). Refusing the newcomer rather than
 *   closing an older connection means a flood can never cut a call that is already up;
 * - a connection that has not identified itself `identifyMs` after it opened is closed and
 *   counted (`sawt_tcp_connections_silent_total`). What identifies a connection is the door's
 *   call ({@link ConnectionGuard.identify}): for SIP a first whole message, for MRCP a request
 *   naming a channel of an open session. A door whose sessions announce connections before they
 *   come (an MRCP channel waits for its TCP connection, which may stay quiet until the IVR's first
 *   SPEAK or RECOGNIZE) says how many it still expects (`expected`): that many of the newest silent
 *   connections are kept past the timeout, the older ones go first.
 *
 * Gauges `sawt_tcp_connections{door}` (open) and `sawt_tcp_connections_max{door}` (the cap). A door
 * with metrics of its own (the call doors: `sawt_call_connections{door}`, which reads
 * {@link ConnectionGuard.open}, and `sawt_calls_refused_total{door,reason}`) passes a
 * {@link ConnectionReport} and is counted there instead. The call doors' identify rule: an
 * AudioSocket connection's UUID and first audio, chan_websocket's MEDIA_START.
 */
import type { Socket } from "node:net";
import type { AppContext } from "../core/context.ts";
import type { Counter } from "../serving/prometheus.ts";

/** Where a door with metrics of its own counts its refusals (instead of `sawt_tcp_connections*`). */
export interface ConnectionReport {
  /** A connection closed at accept (`limit`, `network`) or for its silence (`silent`). */
  refused(reason: RefusedReason | "silent"): void;
}

/** A door's bounds. */
export interface ConnectionLimits {
  /** Connections open at once. */
  readonly max: number;
  /** How long a connection may stay unidentified, in milliseconds. */
  readonly identifyMs: number;
  /** Connections the door's sessions still wait for (kept past the timeout, newest first). */
  readonly expected?: () => number;
  /** Counts the door's connections in its own metrics. */
  readonly report?: ConnectionReport;
}

/** Why a connection was refused at accept. */
export type RefusedReason = "limit" | "network";

/** A connection's place: unidentified until the door says otherwise. */
export interface ConnectionPlace {
  /** The connection identified itself: the silence timeout no longer applies. */
  identify(): void;
  /** It no longer serves what it identified itself for: treated as new again. */
  unidentify(): void;
  /** Gives the place back (idempotent); the connection closed. */
  release(): void;
}

interface GuardMetrics {
  readonly refused: Counter;
  readonly silent: Counter;
  readonly doors: Map<string, ConnectionGuard>;
}

const byRegistry = new WeakMap<object, GuardMetrics>();

function metricsOf(ctx: AppContext): GuardMetrics {
  const registry = ctx.metrics.registry;
  let found = byRegistry.get(registry);
  if (found) return found;
  const doors = new Map<string, ConnectionGuard>();
  registry.gauge("sawt_tcp_connections", "Open TCP connections of a raw TCP door (SIP over TCP, MRCP).", () =>
    [...doors].map(([door, guard]) => ({ labels: { door }, value: guard.open })),
  );
  registry.gauge(
    "sawt_tcp_connections_max",
    "The cap on a raw TCP door's open connections (mrcp.max_connections); more are refused.",
    () => [...doors].map(([door, guard]) => ({ labels: { door }, value: guard.max })),
  );
  found = {
    doors,
    refused: registry.counter(
      "sawt_tcp_connections_refused_total",
      "TCP connections closed at accept: over the door's cap (limit) or from a network it does not serve (network).",
      ["door", "reason"],
    ),
    silent: registry.counter(
      "sawt_tcp_connections_silent_total",
      "TCP connections closed because they did not identify themselves in time (mrcp.identify_timeout_s).",
      ["door"],
    ),
  };
  byRegistry.set(registry, found);
  return found;
}

/** How often silent connections are looked for: a tenth of a second's precision is plenty. */
const SWEEP_MS = 100;
/** Log the cap being hit at most this often (a flood must not flood the log too). */
const LOG_EVERY_MS = 60_000;

/** One held place: how to close its connection. */
interface Held {
  readonly close: () => void;
}

/** See the file comment. */
export class ConnectionGuard {
  private readonly held = new Set<Held>();
  /** Unidentified connections and when they became so. */
  private readonly silent = new Map<Held, number>();
  private readonly bySocket = new Map<Socket, ConnectionPlace>();
  private readonly metrics: GuardMetrics | undefined;
  private readonly sweep: ReturnType<typeof setInterval>;
  private lastLogged = -Infinity;

  constructor(
    private readonly ctx: AppContext,
    readonly door: string,
    private readonly limits: ConnectionLimits,
  ) {
    if (!limits.report) {
      this.metrics = metricsOf(ctx);
      this.metrics.doors.set(door, this);
    }
    this.sweep = setInterval(() => this.closeSilent(), SWEEP_MS);
    this.sweep.unref?.();
  }

  /** Connections open now. */
  get open(): number {
    return this.held.size;
  }

  /** The cap. */
  get max(): number {
    return this.limits.max;
  }

  /** Whether one more connection may open; when not, it is counted as refused (`limit`). */
  hasRoom(): boolean {
    if (this.held.size < this.limits.max) return true;
    this.refused("limit");
    const now = performance.now();
    if (now - this.lastLogged >= LOG_EVERY_MS) {
      this.lastLogged = now;
      this.ctx.log.warn("connection refused: too many open", { door: this.door, max: this.limits.max });
    }
    return false;
  }

  /**
   * Takes a place for a connection (after {@link hasRoom}), unidentified: `close` is called once
   * if it stays so past the timeout (the silence is counted here, not by `close`).
   */
  hold(close: () => void): ConnectionPlace {
    const entry: Held = { close };
    this.held.add(entry);
    this.silent.set(entry, performance.now());
    return {
      identify: () => void this.silent.delete(entry),
      unidentify: () => {
        if (this.held.has(entry) && !this.silent.has(entry)) this.silent.set(entry, performance.now());
      },
      release: () => {
        this.silent.delete(entry);
        this.held.delete(entry);
      },
    };
  }

  /**
   * Takes a just-accepted socket: true when it may stay (unidentified until the door says
   * otherwise), false when it was over the cap and has been closed.
   */
  accept(socket: Socket): boolean {
    if (!this.hasRoom()) {
      socket.destroy();
      return false;
    }
    const place = this.hold(() => socket.destroy());
    this.bySocket.set(socket, place);
    socket.once("close", () => {
      this.bySocket.delete(socket);
      place.release();
    });
    return true;
  }

  /** Counts a connection refused without a socket to close (a WebSocket before its upgrade). */
  refused(reason: RefusedReason | "silent"): void {
    if (this.limits.report) return this.limits.report.refused(reason);
    if (reason === "silent") this.metrics!.silent.inc({ door: this.door });
    else this.metrics!.refused.inc({ door: this.door, reason });
  }

  /** Closes a socket the door will not serve at all (counted by `reason`). */
  refuse(socket: Socket, reason: RefusedReason): void {
    this.refused(reason);
    socket.destroy();
  }

  /** The socket's connection identified itself: the silence timeout no longer applies. */
  identify(socket: Socket): void {
    this.bySocket.get(socket)?.identify();
  }

  /**
   * The connection no longer serves anything it identified itself for (an MRCP connection whose
   * channels all ended): it is treated as new again, so one a client forgets is closed in time.
   */
  unidentify(socket: Socket): void {
    this.bySocket.get(socket)?.unidentify();
  }

  /** Stops the sweep and forgets the door's gauges (the door closed its port). */
  close(): void {
    clearInterval(this.sweep);
    if (this.metrics?.doors.get(this.door) === this) this.metrics.doors.delete(this.door);
  }

  private closeSilent(): void {
    if (this.silent.size === 0) return;
    const now = performance.now();
    const keep = this.limits.expected?.() ?? 0;
    // Newest first: the connections a session announced come after the 200 that announced them.
    const newestFirst = [...this.silent].sort((a, b) => b[1] - a[1]);
    for (const [entry, since] of newestFirst.slice(keep)) {
      if (now - since < this.limits.identifyMs) continue;
      this.silent.delete(entry);
      this.refused("silent");
      entry.close();
    }
  }
}
