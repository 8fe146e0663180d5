/**
 * A real engine for runtime tests, built on the constructed slow model: a loader that opens and
 * warms the model through the session factory (as a TTS or ASR loader does) and serves it in the
 * TTS engine slot, plus an HTTP route `POST /test/slow` that does what a speech route does —
 * `readyService(ctx, "tts")` (the edge gate), then one inference under `ctx.admission.tts` with the request's
 * abort signal, reported to metrics. Real server, real ONNX session, real HTTP clients; only the
 * route is test-specific (the TTS engine is built elsewhere).
 */
import { Elysia } from "elysia";
import type { AppContext } from "../../src/app/context.ts";
import type { EngineLoader } from "../../src/core/engines.ts";
import { openPackModel } from "./pack-model.ts";
import type { FeaturePlugin } from "../../src/app/http-app.ts";
import { readyService } from "../../src/edge/readiness.ts";
import { loadOrt } from "../../src/onnx/ort.ts";
import { warmUp, type Session } from "../../src/onnx/sessions.ts";
import type { TtsService } from "../../src/tts/types.ts";

/** The test service: one inference of the slow model. */
export interface SlowService {
  infer(): Promise<{ seconds: number }>;
}

/** Feeds of the slow model (`x` float32 [1,4]; y = x). */
export async function slowFeeds() {
  const ort = await loadOrt();
  return { x: new ort.Tensor("float32", Float32Array.of(1, 2, 3, 4), [1, 4]) };
}

/** Runs the session once and checks y = x, so a wrong result can never pass as a run. */
async function inferOnce(session: Session): Promise<{ seconds: number }> {
  const { outputs, seconds } = await session.runTimed(await slowFeeds());
  const y = [...(outputs.y?.data as Float32Array)];
  if (y.join() !== "1,2,3,4") throw new Error(`slow model returned ${y.join()}`);
  return { seconds };
}

/** Options of {@link slowEngine}. */
export interface SlowEngineOptions {
  /** Pack folder name reported in errors. */
  readonly pack?: string;
  /** Resolves when the loader may finish (keeps the engine initializing until then). */
  readonly gate?: Promise<void>;
}

/** A loader serving the slow model at `modelPath` in the TTS slot, and its route. */
export function slowEngine(modelPath: string, options: SlowEngineOptions = {}) {
  let runs = 0;
  const loader: EngineLoader<"tts"> = {
    engine: "tts",
    async load({ app }) {
      await options.gate;
      const { session, provider } = await openPackModel(options.pack ?? "slow", modelPath);
      await warmUp(session, await slowFeeds());
      const service: SlowService = {
        async infer() {
          runs++;
          const result = await inferOnce(session);
          // One nominal second of audio per run, so the real-time factor is the run time.
          app.metrics.observeInference("tts", result.seconds, 1);
          return result;
        },
      };
      // The TTS slot is typed for the real TTS service; this test engine stands in for it.
      return {
        service: service as unknown as TtsService,
        details: { packs: [options.pack ?? "slow"], session_provider: provider },
        close: () => session.release(),
      };
    },
  };
  const plugin: FeaturePlugin = (ctx: AppContext) =>
    new Elysia({ name: "test-slow" }).post("/test/slow", async ({ request }) => {
      // The real edge gate: 503 "TTS engine not initialized" / shutting down unless ready.
      const service = readyService(ctx, "tts") as unknown as SlowService;
      const { seconds } = await ctx.admission.tts.run(() => service.infer(), { signal: request.signal });
      return { ok: true, seconds };
    });
  return { loader, plugin, runs: () => runs };
}
