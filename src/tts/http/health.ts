/** GET /v1/tts/health (D15): the TTS engine's state, open, no key. */
import { Elysia } from "elysia";
import type { AppContext } from "../../core/context.ts";
import { engineHealth, healthDoc, sendHealth } from "../../http/health.ts";

/** The TTS health route plugin. */
export function ttsHealthRoutes(ctx: AppContext) {
  return new Elysia({ name: "tts-health" }).get(
    "/v1/tts/health",
    ({ set }) => sendHealth(set, engineHealth(ctx.engines.tts)),
    {
      detail: healthDoc(
        "ttsHealth",
        "TTS health",
        '200 `{"status":"healthy", …details}` when TTS can serve; 503 `{"status":"unavailable", "detail"}` otherwise.',
      ),
    },
  );
}
