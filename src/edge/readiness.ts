/**
 * The one readiness gate in front of the engine services (D13, D15), for every front door: a call
 * reaches a service only when its engine is wired (startEngines set `ctx.tts` / `ctx.asr`) and its
 * state is ready. Otherwise 503 `… engine not initialized` (initializing or failed: the reason
 * stays in health details and logs), the engine's own reason when it is disabled (nothing to
 * serve, e.g. no recogniser installed), or `… engine is shutting down` once draining — both with the
 * same Retry-After, so REST, WebSocket and gRPC clients see the same refusal and back off alike.
 */
import type { AsrService } from "../core/asr.ts";
import type { AppContext, EngineName } from "../core/context.ts";
import { AppError, Detail } from "../errors/taxonomy.ts";
import type { TtsService } from "../core/tts.ts";

/** Seconds a client should wait before retrying a call refused because its engine cannot serve. */
export const ENGINE_RETRY_AFTER_S = 5;

/** The service each engine name stands for. */
interface Services {
  readonly tts: TtsService;
  readonly asr: AsrService;
}

const NOT_READY: Readonly<Record<EngineName, string>> = { tts: Detail.ttsNotReady, asr: Detail.asrNotReady };

/** The detail of a refusal while `engine` drains. */
function drainingDetail(engine: EngineName): string {
  return `${engine.toUpperCase()} engine is shutting down`;
}

/** The service of `engine` when it can serve; the 503 AppError every front door answers otherwise. */
export function readyService<E extends EngineName>(ctx: AppContext, engine: E): Services[E] {
  const state = ctx.engines[engine];
  const retryAfter = ENGINE_RETRY_AFTER_S;
  if (state.state === "draining") throw new AppError("unavailable", drainingDetail(engine), { retryAfter });
  // Disabled says why in its own words (e.g. no recogniser installed): waiting will not help.
  if (state.state === "disabled")
    throw new AppError("unavailable", state.snapshot().reason ?? `${engine.toUpperCase()} engine is disabled`);
  const service = ctx[engine] as Services[E] | undefined;
  if (service === undefined || !state.isReady()) throw new AppError("unavailable", NOT_READY[engine], { retryAfter });
  return service;
}
