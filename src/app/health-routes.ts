/**
 * Health and readiness (D15): `/health` (process alive), `/ready` (every enabled engine ready),
 * and per-engine `/v1/tts/health`, `/v1/asr/health`. Open, no key. All read the engine states.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../core/context.ts";
import type { EngineState } from "../runtime/engine-state.ts";
import { ref } from "../http/openapi.ts";

/** OpenAPI operation of an open health route. */
function healthDoc(operationId: string, summary: string, description: string) {
  const json = { "application/json": { schema: ref("schemas", "Health") } };
  const headers = { "X-Request-ID": ref("headers", "X-Request-ID") };
  return {
    operationId,
    summary,
    description,
    tags: ["Health"],
    security: [],
    responses: {
      "200": { description: "Healthy / ready.", headers, content: json },
      "503": { description: "Not (yet) able to serve; `detail` says why.", headers, content: json },
    },
  };
}

/** The body and status of one engine's health. */
export function engineHealth(state: EngineState): { status: number; body: Record<string, unknown> } {
  const snap = state.snapshot();
  if (snap.status === "ready") return { status: 200, body: { status: "healthy", engine: snap.name, ...snap.details } };
  const why =
    snap.reason ?? (snap.status === "initializing" ? `${snap.name.toUpperCase()} engine not initialized` : snap.status);
  return {
    status: 503,
    body: { status: "unavailable", engine: snap.name, state: snap.status, detail: why, ...snap.details },
  };
}

/** Health routes plugin. */
export function healthRoutes(ctx: AppContext) {
  const reply = (set: { status?: number | string }, result: { status: number; body: Record<string, unknown> }) => {
    set.status = result.status;
    return result.body;
  };
  return new Elysia({ name: "health" })
    .get(
      "/health",
      ({ set }) =>
        reply(
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
        return reply(set, {
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
    .get("/v1/tts/health", ({ set }) => reply(set, engineHealth(ctx.engines.tts)), {
      detail: healthDoc(
        "ttsHealth",
        "TTS health",
        '200 `{"status":"healthy", …details}` when TTS can serve; 503 `{"status":"unavailable", "detail"}` otherwise.',
      ),
    })
    .get("/v1/asr/health", ({ set }) => reply(set, engineHealth(ctx.engines.asr)), {
      detail: healthDoc(
        "asrHealth",
        "ASR health",
        '200 `{"status":"healthy", …details}` when ASR can serve; 503 `{"status":"unavailable", "detail"}` otherwise.',
      ),
    });
}
