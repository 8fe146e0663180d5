/**
 * GET /metrics: the Prometheus text exposition of src/serving/metrics.ts. Needs an admin key
 * (`X-API-Key` or `Authorization: Bearer`, keys made with `sawt keys create --admin`) unless
 * `runtime.metrics_open` is set for a scraper on a trusted network. A scrape does not consume the
 * key's rate limit: Prometheus scrapes on a fixed interval and must never be throttled into gaps.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../core/context.ts";
import { authPlugin } from "../http/auth.ts";

/** Content type of the text exposition format. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** The metrics route plugin. */
export function metricsRoutes(ctx: AppContext) {
  return new Elysia({ name: "metrics" }).use(authPlugin(ctx)).get(
    "/metrics",
    ({ set }) => {
      set.headers["content-type"] = METRICS_CONTENT_TYPE;
      set.headers["cache-control"] = "no-store";
      return ctx.metrics.render();
      // An operator endpoint (README "Running it"), not part of the client API reference.
    },
    { admin: true, detail: { hide: true } },
  );
}
