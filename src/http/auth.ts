/**
 * Authentication and per-key rate limits at the HTTP edge (D10, D11). `X-API-Key` or
 * `Authorization: Bearer` carry the key; the key store verifies it in constant time; the limiter
 * admits or refuses with `Retry-After`. Rate-limit headers go on every authenticated response.
 */
import type { AppContext } from "../app/context.ts";
import { AppError, Detail } from "../errors/taxonomy.ts";
import type { ApiKeyRecord } from "../store/keys.ts";

/** The key a request presents, from `X-API-Key` or a Bearer token. */
export function presentedKey(headers: { get(name: string): string | null }): string | undefined {
  const direct = headers.get("x-api-key")?.trim();
  if (direct) return direct;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "");
  return bearer?.[1];
}

/** An authenticated caller and the rate-limit headers to send back. */
export interface Caller {
  readonly key: ApiKeyRecord;
  readonly rateHeaders: Record<string, string>;
}

/** Verifies the key and consumes one request of its rate limit. Throws 401/429 AppErrors. */
export function authenticate(ctx: AppContext, presented: string | undefined): Caller {
  if (!presented) throw new AppError("unauthorized", Detail.apiKeyMissing);
  const key = ctx.keys.verify(presented);
  if (!key) throw new AppError("unauthorized", Detail.apiKeyInvalid);
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
