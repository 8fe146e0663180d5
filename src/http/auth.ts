/**
 * Authentication on the REST side, written once as an Elysia macro. A route that says
 * `{ auth: true }` gets the edge's key check and rate limit (src/edge/auth.ts) before its handler
 * runs (so before its body is read: 401 comes first), the rate-limit headers on its response —
 * errors raised later included — and the `caller` in its handler's context. `{ admin: true }` is
 * the operator form (metrics): an admin key, no rate limit, open when `runtime.metrics_open`.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../core/context.ts";
import { toAppError } from "../errors/taxonomy.ts";
import { authenticateAdmin, presentedKey, verify, admit, type Caller, type KeySources } from "../edge/auth.ts";

export type { Caller } from "../edge/auth.ts";

// The app's request log (a global onAfterResponse) names the key, also when admission refused it
// (429) after the key was verified: a route-local resolve neither reaches a global hook's typed
// context nor returns anything when it throws, so the id is kept beside the request here.
const keyIds = new WeakMap<Request, string>();

/** The id of the key that authenticated `request`, if one did (logged instead of the key, D18). */
export function requestKeyId(request: Request): string | undefined {
  return keyIds.get(request);
}

/**
 * Verifies the key `request` presents (X-API-Key, Bearer, or the door's own `sources`: Deepgram's
 * `Token`), names it for the request log and consumes one request of its rate limit. Throws the
 * 401/429 AppError; a route that renders errors in its own protocol's shape calls this itself.
 */
export function authenticateRequest(ctx: AppContext, request: Request, sources?: KeySources): Caller {
  const key = verify(ctx, presentedKey(request.headers, sources));
  keyIds.set(request, key.id);
  return admit(ctx, key);
}

/**
 * What the `auth` macro does, for a route that renders errors in its own protocol's shape (it
 * names the shape first, so its 401 is in that shape too): authenticates `request` with the
 * door's key `sources`, runs `handle`, and puts the key's rate-limit headers on its response and
 * on every error `handle` throws.
 */
export async function respondAuthenticated(
  ctx: AppContext,
  request: Request,
  sources: KeySources,
  handle: (caller: Caller) => Promise<Response>,
): Promise<Response> {
  const caller = authenticateRequest(ctx, request, sources);
  try {
    const response = await handle(caller);
    for (const [name, value] of Object.entries(caller.rateHeaders)) response.headers.set(name, value);
    return response;
  } catch (thrown) {
    throw toAppError(thrown).withHeaders(caller.rateHeaders);
  }
}

/** The Elysia plugin providing the `auth` and `admin` route options; `.use()` it in a feature plugin. */
export function authPlugin(ctx: AppContext) {
  // Unnamed: Elysia would dedupe a named plugin across apps, and each app has its own context.
  return new Elysia().macro({
    auth: {
      resolve({ request, set }): { caller: Caller } {
        const caller = authenticateRequest(ctx, request);
        Object.assign(set.headers, caller.rateHeaders);
        return { caller };
      },
    },
    admin: {
      beforeHandle({ request }) {
        authenticateAdmin(ctx, request.headers, ctx.config.runtime.metrics_open);
      },
    },
  });
}
