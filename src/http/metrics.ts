/**
 * GET /metrics: the Prometheus text exposition of src/runtime/metrics.ts. Needs an admin key
 * (`X-API-Key` or `Authorization: Bearer`, keys made with `sawt keys create --admin`) unless
 * `runtime.metrics_open` is set for a scraper on a trusted network. A scrape does not consume the
 * key's rate limit: Prometheus scrapes on a fixed interval and must never be throttled into gaps.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../app/context.ts";
import { AppError, Detail } from "../errors/taxonomy.ts";
import { presentedKey } from "./auth.ts";

/** Content type of the text exposition format. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Throws 401/403 unless the request may read metrics. */
export function authorizeMetrics(ctx: AppContext, headers: { get(name: string): string | null }): void {
  if (ctx.config.runtime.metrics_open) return;
  const presented = presentedKey(headers);
  if (!presented) throw new AppError("unauthorized", Detail.apiKeyMissing);
  const key = ctx.keys.verify(presented);
  if (!key) throw new AppError("unauthorized", Detail.apiKeyInvalid);
  if (!key.admin) throw new AppError("forbidden", "Admin API key required");
}

/** The metrics route plugin. */
export function metricsRoutes(ctx: AppContext) {
  return new Elysia({ name: "metrics" }).get("/metrics", ({ request, set }) => {
    authorizeMetrics(ctx, request.headers);
    set.headers["content-type"] = METRICS_CONTENT_TYPE;
    set.headers["cache-control"] = "no-store";
    return ctx.metrics.render();
    // An operator endpoint (README "Running it"), not part of the client API reference.
  }, { detail: { hide: true } });
}
