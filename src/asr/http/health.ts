/** GET /v1/asr/health (D15): the ASR engine's state, open, no key. */
import { Elysia } from "elysia";
import type { AppContext } from "../../core/context.ts";
import { engineHealth, healthDoc, sendHealth } from "../../http/health.ts";

/** The ASR health route plugin. */
export function asrHealthRoutes(ctx: AppContext) {
  return new Elysia({ name: "asr-health" }).get(
    "/v1/asr/health",
    ({ set }) => sendHealth(set, engineHealth(ctx.engines.asr)),
    {
      detail: healthDoc(
        "asrHealth",
        "ASR health",
        '200 `{"status":"healthy", …details}` when ASR can serve; 503 `{"status":"unavailable", "detail"}` otherwise.',
      ),
    },
  );
}
