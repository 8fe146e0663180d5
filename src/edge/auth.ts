/**
 * Authentication and per-key rate limits for every front door (D10, D11). `X-API-Key` or
 * `Authorization: Bearer` carry the key (as HTTP headers or gRPC metadata); the key store verifies
 * it in constant time; the limiter admits or refuses with `Retry-After`. Transports put the
 * rate-limit counters on their responses (headers, initial metadata).
 *
 * Every authenticated request counts against the key's limit, whatever its outcome (a 400 for an
 * empty input costs a slot like a synthesis does): the limit protects the service, and a client
 * looping on a bad request must be slowed down too.
 */
import type { AppContext } from "../core/context.ts";
import { AppError, Detail } from "../errors/taxonomy.ts";
import type { ApiKeyRecord } from "../store/keys.ts";
import type { HeaderGetter } from "./headers.ts";

/**
 * A WebSocket subprotocol that carries the key, for browser clients (which cannot set headers on a
 * WebSocket): `prefix`, one protocol `<prefix><key>` (OpenAI's `openai-insecure-api-key.<key>`),
 * or `marker`, the key as the protocol after the marker (Deepgram's `token, <key>`), where the
 * server's 101 must name the marker as the protocol it chose.
 */
export type KeySubprotocol = { readonly prefix: string } | { readonly marker: string };

/**
 * Where a door's clients may present the key besides `X-API-Key` and `Authorization: Bearer`, as
 * the protocol it speaks has them send it (Deepgram's clients: `Authorization: Token <key>` and
 * the `token` subprotocol). A door lists what its wire uses; every door reads keys here.
 */
export interface KeySources {
  /** Authorization schemes accepted besides Bearer (case-insensitive), e.g. `Token`. */
  readonly schemes?: readonly string[];
  /** Subprotocols that carry the key, in the order they are tried. */
  readonly subprotocols?: readonly KeySubprotocol[];
}

/** The subprotocols a WebSocket upgrade offers, in order. */
export function offeredSubprotocols(headers: HeaderGetter): string[] {
  return (headers.get("sec-websocket-protocol") ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
}

/** The key a subprotocol of `sources` carries, and the protocol to echo when it is a marker. */
function subprotocolKey(headers: HeaderGetter, sources: KeySources): { key: string; echo?: string } | undefined {
  const offered = offeredSubprotocols(headers);
  for (const way of sources.subprotocols ?? []) {
    if ("prefix" in way) {
      const found = offered.find((p) => p.startsWith(way.prefix) && p.length > way.prefix.length);
      if (found) return { key: found.slice(way.prefix.length) };
    } else {
      const at = offered.findIndex((p) => p.toLowerCase() === way.marker.toLowerCase());
      const key = at >= 0 ? offered[at + 1] : undefined;
      if (key) return { key, echo: offered[at] };
    }
  }
  return undefined;
}

/**
 * The key a request presents: `X-API-Key`, `Authorization: Bearer <key>` (or another scheme of
 * `sources`), else a subprotocol of `sources`.
 */
export function presentedKey(headers: HeaderGetter, sources: KeySources = {}): string | undefined {
  const direct = headers.get("x-api-key")?.trim();
  if (direct) return direct;
  const authorization = /^(\S+)\s+(\S+)\s*$/.exec(headers.get("authorization") ?? "");
  const scheme = authorization?.[1]?.toLowerCase();
  if (scheme === "bearer" || (scheme && sources.schemes?.some((s) => s.toLowerCase() === scheme)))
    return authorization![2];
  return subprotocolKey(headers, sources)?.key;
}

/**
 * The subprotocol a WebSocket's 101 must name when the upgrade offers a key as a marker's pair: a
 * client that offered protocols fails a handshake whose 101 names none. Undefined otherwise.
 */
export function keySubprotocol(headers: HeaderGetter, sources: KeySources): string | undefined {
  return subprotocolKey(headers, sources)?.echo;
}

/** An authenticated caller and the rate-limit counters to send back. */
export interface Caller {
  readonly key: ApiKeyRecord;
  /** `x-ratelimit-limit`, `-remaining`, `-reset`, lower-case. */
  readonly rateHeaders: Record<string, string>;
}

/** Verifies a presented key (401 when missing or wrong). */
export function verify(ctx: AppContext, presented: string | undefined): ApiKeyRecord {
  if (!presented) throw new AppError("unauthorized", Detail.apiKeyMissing);
  const key = ctx.keys.verify(presented);
  if (!key) throw new AppError("unauthorized", Detail.apiKeyInvalid);
  return key;
}

/** Consumes one request of the key's rate limit (429 with Retry-After when none is left). */
export function admit(ctx: AppContext, key: ApiKeyRecord): Caller {
  const decision = ctx.rateLimiter.consume(key.id, key.rpm);
  const rateHeaders = {
    "x-ratelimit-limit": String(decision.limit),
    "x-ratelimit-remaining": String(decision.remaining),
    "x-ratelimit-reset": String(decision.resetSeconds),
  };
  if (!decision.allowed) {
    throw new AppError("rate_limited", Detail.rateLimited, { retryAfter: decision.resetSeconds, headers: rateHeaders });
  }
  return { key, rateHeaders };
}

/** Verifies the presented key and consumes one request of its rate limit. Throws 401/429 AppErrors. */
export function authenticate(ctx: AppContext, headers: HeaderGetter): Caller {
  return admit(ctx, verify(ctx, presentedKey(headers)));
}

/**
 * Verifies a key that may read operator data (metrics): any valid admin key, no rate limit (a
 * scraper on a fixed interval must never be throttled into gaps). 401 without one, 403 when the
 * key is not an admin key. `open` skips the check (a scraper on a trusted network).
 */
export function authenticateAdmin(ctx: AppContext, headers: HeaderGetter, open: boolean): void {
  if (open) return;
  const key = verify(ctx, presentedKey(headers));
  if (!key.admin) throw new AppError("forbidden", "Admin API key required");
}
