/**
 * The cap on open WebSocket connections over every door (`server.max_websockets`, issue 39): the
 * TTS WebSocket held no bound at all (a key could keep any number of idle sockets, each up to its
 * idle timeout). Checked twice: before the 101, so a refused client gets the REST 503 busy body
 * with Retry-After, and when the socket opens, so upgrades that passed the check together can
 * never add up past the cap (the extra socket is closed with 1013, try again later). Live
 * transcription doors are bounded apart, and lower, by `streaming.max_streams`; this bounds the
 * sockets themselves. What the connection may not do before it identifies itself is Bun's: the
 * HTTP port closes a connection that sends nothing for 10 s, and the key is checked before the 101.
 *
 * Metrics: `sawt_ws_connections{door}`, `sawt_ws_connections_max`,
 * `sawt_ws_connections_refused_total{door}`.
 */
import type { AppContext } from "../core/context.ts";
import { ENGINE_RETRY_AFTER_S } from "../edge/readiness.ts";
import { AppError, Detail } from "../errors/taxonomy.ts";
import type { Counter } from "../serving/prometheus.ts";

interface Limit {
  readonly perDoor: Map<string, number>;
  readonly refused: Counter;
  total: number;
}

const byContext = new WeakMap<AppContext, Limit>();

function limitOf(ctx: AppContext): Limit {
  let found = byContext.get(ctx);
  if (found) return found;
  const registry = ctx.metrics.registry;
  const perDoor = new Map<string, number>();
  registry.gauge("sawt_ws_connections", "Open WebSocket connections, by door.", () =>
    [...perDoor].map(([door, value]) => ({ labels: { door }, value })),
  );
  registry.gauge("sawt_ws_connections_max", "The cap on open WebSocket connections (server.max_websockets).", () => [
    { labels: {}, value: ctx.config.server.max_websockets },
  ]);
  found = {
    perDoor,
    total: 0,
    refused: registry.counter(
      "sawt_ws_connections_refused_total",
      "WebSocket upgrades refused because server.max_websockets connections were open.",
      ["door"],
    ),
  };
  byContext.set(ctx, found);
  return found;
}

/** Registers the cap's metrics (a WebSocket door's routes call it once they are built). */
export function registerWebSocketLimit(ctx: AppContext): void {
  limitOf(ctx);
}

/** The 503 a refused upgrade gets. */
function tooMany(): AppError {
  return new AppError("unavailable", Detail.asrBusy, { retryAfter: ENGINE_RETRY_AFTER_S });
}

/** Throws the 503 busy error (and counts it) when the cap is reached; call before the 101. */
export function checkWebSocketRoom(ctx: AppContext, door: string): void {
  const limit = limitOf(ctx);
  if (limit.total < ctx.config.server.max_websockets) return;
  limit.refused.inc({ door });
  throw tooMany();
}

/**
 * Counts an opened socket; returns its release (idempotent), or throws the 503 busy error (and
 * counts it) when the cap was reached meanwhile.
 */
export function holdWebSocket(ctx: AppContext, door: string): () => void {
  checkWebSocketRoom(ctx, door);
  const limit = limitOf(ctx);
  limit.total++;
  limit.perDoor.set(door, (limit.perDoor.get(door) ?? 0) + 1);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    limit.total = Math.max(0, limit.total - 1);
    limit.perDoor.set(door, Math.max(0, (limit.perDoor.get(door) ?? 1) - 1));
  };
}
