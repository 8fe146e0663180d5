/**
 * Bounds on a raw TCP door's connections (issue 39): the SIP port over TCP and the MRCP control
 * port today, any TCP door tomorrow (AudioSocket). Without them, 400 connections that never send a
 * byte were all held a minute later. A door hands each accepted socket to its guard:
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
 * Gauges `sawt_tcp_connections{door}` (open) and `sawt_tcp_connections_max{door}` (the cap).
 */
import type { Socket } from "node:net";
import type { AppContext } from "../core/context.ts";
import type { Counter } from "../serving/prometheus.ts";

/** A door's bounds. */
export interface ConnectionLimits {
  /** Connections open at once. */
  readonly max: number;
  /** How long a connection may stay unidentified, in milliseconds. */
  readonly identifyMs: number;
  /** Connections the door's sessions still wait for (kept past the timeout, newest first). */
  readonly expected?: () => number;
}

/** Why a connection was refused at accept. */
export type RefusedReason = "limit" | "network";

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

/** See the file comment. */
export class ConnectionGuard {
  private readonly sockets = new Set<Socket>();
  /** Unidentified connections and when they became so. */
  private readonly silent = new Map<Socket, number>();
  private readonly metrics: GuardMetrics;
  private readonly sweep: ReturnType<typeof setInterval>;
  private lastLogged = -Infinity;

  constructor(
    private readonly ctx: AppContext,
    readonly door: string,
    private readonly limits: ConnectionLimits,
  ) {
    this.metrics = metricsOf(ctx);
    this.metrics.doors.set(door, this);
    this.sweep = setInterval(() => this.closeSilent(), SWEEP_MS);
    this.sweep.unref?.();
  }

  /** Connections open now. */
  get open(): number {
    return this.sockets.size;
  }

  /** The cap. */
  get max(): number {
    return this.limits.max;
  }

  /**
   * Takes a just-accepted socket: true when it may stay (unidentified until the door says
   * otherwise), false when it was over the cap and has been closed.
   */
  accept(socket: Socket): boolean {
    if (this.sockets.size >= this.limits.max) {
      this.refuse(socket, "limit");
      const now = performance.now();
      if (now - this.lastLogged >= LOG_EVERY_MS) {
        this.lastLogged = now;
        this.ctx.log.warn("connection refused: too many open", { door: this.door, max: this.limits.max });
      }
      return false;
    }
    this.sockets.add(socket);
    this.silent.set(socket, performance.now());
    socket.once("close", () => {
      this.sockets.delete(socket);
      this.silent.delete(socket);
    });
    return true;
  }

  /** Closes a socket the door will not serve at all (counted by `reason`). */
  refuse(socket: Socket, reason: RefusedReason): void {
    this.metrics.refused.inc({ door: this.door, reason });
    socket.destroy();
  }

  /** The connection identified itself: the silence timeout no longer applies. */
  identify(socket: Socket): void {
    this.silent.delete(socket);
  }

  /**
   * The connection no longer serves anything it identified itself for (an MRCP connection whose
   * channels all ended): it is treated as new again, so one a client forgets is closed in time.
   */
  unidentify(socket: Socket): void {
    if (this.sockets.has(socket) && !this.silent.has(socket)) this.silent.set(socket, performance.now());
  }

  /** Stops the sweep and forgets the door's gauges (the door closed its port). */
  close(): void {
    clearInterval(this.sweep);
    if (this.metrics.doors.get(this.door) === this) this.metrics.doors.delete(this.door);
  }

  private closeSilent(): void {
    if (this.silent.size === 0) return;
    const now = performance.now();
    const keep = this.limits.expected?.() ?? 0;
    // Newest first: the connections a session announced come after the 200 that announced them.
    const newestFirst = [...this.silent].sort((a, b) => b[1] - a[1]);
    for (const [socket, since] of newestFirst.slice(keep)) {
      if (now - since < this.limits.identifyMs) continue;
      this.silent.delete(socket);
      this.metrics.silent.inc({ door: this.door });
      socket.destroy();
    }
  }
}
