/**
 * Authentication and per-key rate limits at the HTTP edge (D10, D11). `X-API-Key` or
 * `Authorization: Bearer` carry the key; the key store verifies it in constant time; the limiter
 * admits or refuses with `Retry-After`. Rate-limit headers go on every authenticated response.
 *
 * Every authenticated request counts against the key's limit, whatever its outcome (a 400 for an
 * empty input costs a slot like a synthesis does): the limit protects the service, and a client
 * looping on a bad request must be slowed down too.
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

/** Verifies the key and consumes one request of its rate limit. Throws 401/429 AppErrors. */
export function authenticate(ctx: AppContext, presented: string | undefined): Caller {
  return admit(ctx, verify(ctx, presented));
}

const keyIds = new WeakMap<Request, string>();

/**
 * The REST form of {@link authenticate}: also puts the rate-limit headers on the response being
 * built (so errors raised later carry them too) and remembers the key id for the request log.
 */
export function authorize(ctx: AppContext, request: Request, set: { headers: Record<string, unknown> }): Caller {
  const key = verify(ctx, presentedKey(request.headers));
  keyIds.set(request, key.id);
  const caller = admit(ctx, key);
  Object.assign(set.headers, caller.rateHeaders);
  return caller;
}

/** The id of the key that authenticated `request`, if one did (logged instead of the key, D18). */
export function requestKeyId(request: Request): string | undefined {
  return keyIds.get(request);
}
