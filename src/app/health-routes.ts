/**
 * Health and readiness (D15): `/health` (process alive) and `/ready` (every enabled engine ready)
 * live here because they span the process; the per-engine `/v1/tts/health` and `/v1/asr/health`
 * live with their features and are only registered here. Open, no key. All read the engine states.
 */
import { Elysia } from "elysia";
import { asrHealthRoutes } from "../asr/http/health.ts";
import type { AppContext } from "../core/context.ts";
import { healthDoc, sendHealth } from "../http/health.ts";
import { ttsHealthRoutes } from "../tts/http/health.ts";

/** Health routes plugin. */
export function healthRoutes(ctx: AppContext) {
  return new Elysia({ name: "health" })
    .get(
      "/health",
      ({ set }) =>
        sendHealth(
          set,
          ctx.shuttingDown
            ? { status: 503, body: { status: "draining" } }
            : { status: 200, body: { status: "healthy" } },
        ),
      {
        detail: healthDoc(
          "health",
          "Process health",
          '200 `{"status":"healthy"}` while the process runs; 503 once shutdown begins.',
        ),
      },
    )
    .get(
      "/ready",
      ({ set }) => {
        const engines = [ctx.engines.tts, ctx.engines.asr].map((e) => e.snapshot());
        const enabled = engines.filter((e) => e.details.enabled !== false);
        const ready = !ctx.shuttingDown && enabled.every((e) => e.status === "ready");
        return sendHealth(set, {
          status: ready ? 200 : 503,
          body: {
            status: ready ? "ready" : "not_ready",
            engines: Object.fromEntries(engines.map((e) => [e.name, e.status])),
          },
        });
      },
      {
        detail: healthDoc(
          "ready",
          "Readiness",
          "200 when every enabled engine is ready (load balancers), else 503 with each engine's state.",
        ),
      },
    )
    .use(ttsHealthRoutes(ctx))
    .use(asrHealthRoutes(ctx));
}
