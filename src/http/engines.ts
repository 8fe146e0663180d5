/**
 * The REST gate in front of the engine services: a request reaches a service only when its
 * engine is wired (startEngines set `ctx.tts` / `ctx.asr`) and its state is ready (D13, D15).
 * Otherwise 503 with the spec's detail and a Retry-After, so clients back off while it warms up.
 */
import type { AppContext } from "../app/context.ts";
import type { AsrService } from "../asr/types.ts";
import { AppError, Detail } from "../errors/taxonomy.ts";
import type { EngineState } from "../runtime/engine-state.ts";
import type { TtsService } from "../tts/types.ts";

/** Seconds a client should wait before retrying a 503 for an engine that is starting. */
export const WARMUP_RETRY_AFTER_S = 5;

function gate<T>(state: EngineState, service: T | undefined, notReady: string, draining: string): T {
  if (state.snapshot().status === "draining") throw new AppError("unavailable", draining, { retryAfter: WARMUP_RETRY_AFTER_S });
  if (service === undefined || !state.isReady()) throw new AppError("unavailable", notReady, { retryAfter: WARMUP_RETRY_AFTER_S });
  return service;
}

/** The TTS service when it can serve; 503 `TTS engine not initialized` otherwise. */
export function readyTts(ctx: AppContext): TtsService {
  return gate(ctx.engines.tts, ctx.tts, Detail.ttsNotReady, "TTS engine is shutting down");
}

/** The ASR service when it can serve; 503 `ASR engine not initialized` otherwise. */
export function readyAsr(ctx: AppContext): AsrService {
  return gate(ctx.engines.asr, ctx.asr, Detail.asrNotReady, "ASR engine is shutting down");
}
