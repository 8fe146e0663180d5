import { describe, expect, test } from "bun:test";
import type { AppContext } from "../core/context.ts";
import { AppError } from "../errors/taxonomy.ts";
import { EngineState } from "../serving/engine-state.ts";
import { ENGINE_RETRY_AFTER_S, readyService } from "./readiness.ts";

/** Just the parts of a context the gate reads. */
function contextWith(services: { tts?: object; asr?: object } = {}): AppContext {
  return {
    engines: { tts: new EngineState("tts"), asr: new EngineState("asr") },
    ...services,
  } as unknown as AppContext;
}

const refusal = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (error) {
    return error as AppError;
  }
  throw new Error("did not throw");
};

describe("readyService", () => {
  test("does answer 503 not initialized, with Retry-After, while initializing or failed", () => {
    const ctx = contextWith({ tts: {}, asr: {} });
    expect(refusal(() => readyService(ctx, "tts"))).toMatchObject({
      status: 503,
      detail: "TTS engine not initialized",
      retryAfter: ENGINE_RETRY_AFTER_S,
    });
    ctx.engines.asr.fail("no ASR pack installed");
    expect(refusal(() => readyService(ctx, "asr"))).toMatchObject({
      status: 503,
      detail: "ASR engine not initialized",
      retryAfter: ENGINE_RETRY_AFTER_S,
    });
  });

  test("does answer 503 not initialized when the state is ready but no service is wired", () => {
    const ctx = contextWith();
    ctx.engines.tts.ready();
    expect(refusal(() => readyService(ctx, "tts"))).toMatchObject({
      status: 503,
      detail: "TTS engine not initialized",
    });
  });

  test("does answer 503 shutting down, with the same Retry-After, once draining", () => {
    const ctx = contextWith({ tts: {} });
    ctx.engines.tts.ready();
    ctx.engines.tts.drain();
    expect(refusal(() => readyService(ctx, "tts"))).toMatchObject({
      status: 503,
      detail: "TTS engine is shutting down",
      retryAfter: ENGINE_RETRY_AFTER_S,
    });
  });

  test("does give the service once its engine is ready", () => {
    const service = { name: "asr" };
    const ctx = contextWith({ asr: service });
    ctx.engines.asr.ready();
    expect(readyService(ctx, "asr") as unknown).toBe(service);
  });
});
