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

/** The key a request presents, from `X-API-Key` or a Bearer token. */
export function presentedKey(headers: HeaderGetter): string | undefined {
  const direct = headers.get("x-api-key")?.trim();
  if (direct) return direct;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "");
  return bearer?.[1];
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
