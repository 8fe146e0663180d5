/**
 * Health and readiness (D15): `/health` (process alive), `/ready` (every enabled engine ready),
 * and per-engine `/v1/tts/health`, `/v1/asr/health`. Open, no key. All read the engine states.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../app/context.ts";
import type { EngineState } from "../runtime/engine-state.ts";

/** The body and status of one engine's health. */
export function engineHealth(state: EngineState): { status: number; body: Record<string, unknown> } {
  const snap = state.snapshot();
  if (snap.status === "ready") return { status: 200, body: { status: "healthy", engine: snap.name, ...snap.details } };
  const why = snap.reason ?? (snap.status === "initializing" ? `${snap.name.toUpperCase()} engine not initialized` : snap.status);
  return { status: 503, body: { status: "unavailable", engine: snap.name, state: snap.status, detail: why, ...snap.details } };
}

/** Health routes plugin. */
export function healthRoutes(ctx: AppContext) {
  const reply = (set: { status?: number | string }, result: { status: number; body: Record<string, unknown> }) => {
    set.status = result.status;
    return result.body;
  };
  return new Elysia({ name: "health" })
    .get("/health", ({ set }) => reply(set, ctx.shuttingDown ? { status: 503, body: { status: "draining" } } : { status: 200, body: { status: "healthy" } }))
    .get("/ready", ({ set }) => {
      const engines = [ctx.engines.tts, ctx.engines.asr].map((e) => e.snapshot());
      const enabled = engines.filter((e) => e.details.enabled !== false);
      const ready = !ctx.shuttingDown && enabled.every((e) => e.status === "ready");
      return reply(set, {
        status: ready ? 200 : 503,
        body: { status: ready ? "ready" : "not_ready", engines: Object.fromEntries(engines.map((e) => [e.name, e.status])) },
      });
    })
    .get("/v1/tts/health", ({ set }) => reply(set, engineHealth(ctx.engines.tts)))
    .get("/v1/asr/health", ({ set }) => reply(set, engineHealth(ctx.engines.asr)));
}
