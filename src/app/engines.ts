/**
 * Engine start-up. Each engine (TTS, ASR) is loaded by an EngineLoader (contract in
 * src/core/engines.ts) registered in src/app/engine-loaders.ts: it reads its model packs, opens and warms sessions, and returns the
 * transport-free service, which start-up puts on the context (`ctx.tts`, `ctx.asr`). Start-up
 * runs every loader concurrently after the ports are bound (health answers 503 "… engine not
 * initialized" meanwhile) and moves each engine's state
 * initializing → ready, or → failed with the reason. A broken pack never takes other engines
 * down: a loader skips it and reports it (`brokenPacks`), or — when the engine cannot serve at all
 * — throws, and the reason and broken packs land in that engine's health details and the log.
 */
import { EngineLoadError, type AnyEngineLoader, type BrokenPack, type EngineLoader, type EngineName, type EngineServices, type LoadedEngine } from "../core/engines.ts";
import { chooseDevice, deviceDetails, type DeviceChoice } from "../runtime/devices.ts";
import { useDevice } from "../runtime/sessions.ts";
import type { AppContext } from "./context.ts";

/** Loaded engines of a running service. */
export interface RunningEngines {
  /** Settles when every engine is ready or failed. */
  readonly settled: Promise<void>;
  /** Releases every loaded engine (waits for loads still in progress, up to `waitMs`). */
  close(waitMs?: number): Promise<void>;
}

function brokenPacksOf(error: unknown): BrokenPack[] {
  return error instanceof EngineLoadError ? [...error.brokenPacks] : [];
}

async function startOne<K extends EngineName>(ctx: AppContext, name: K, loader: EngineLoader<K> | undefined, device: DeviceChoice, loaded: Array<LoadedEngine<unknown>>): Promise<void> {
  const state = ctx.engines[name];
  if (!loader) {
    // No loader registered for this engine in this build: nothing to load. The state turns
    // ready so /ready reflects the engines that exist; with no service set, its routes answer
    // 503 "… engine not initialized" (src/http/engines.ts).
    state.ready({ loaded: false });
    return;
  }
  const started = performance.now();
  try {
    const result = await loader.load({ app: ctx, device, log: ctx.log });
    const broken = [...(result.brokenPacks ?? [])];
    if (state.state === "draining") {
      await result.close?.(); // shutdown began while loading: never serve
      return;
    }
    loaded.push(result);
    // The service first, then the state: a request that sees "ready" always finds the service.
    (ctx as { [P in EngineName]?: EngineServices[P] })[name] = result.service;
    state.ready({ ...result.details, broken_packs: broken });
    // Loaders log each broken pack as they skip it; this line sums up what serves without it.
    ctx.log.info("engine ready", { engine: name, ms: Math.round(performance.now() - started), broken_packs: broken.map((b) => b.pack).join(", ") || undefined });
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0]! : String(error);
    const broken = brokenPacksOf(error);
    state.fail(reason, { ...(error instanceof EngineLoadError ? error.details : {}), broken_packs: broken });
    ctx.log.error("engine failed", { engine: name, reason, broken_packs: broken.map((b) => `${b.pack}: ${b.reason}`).join("; ") || undefined });
  }
}

/** Chooses the device, then loads every engine concurrently with the registered loaders. */
export function startEngines(ctx: AppContext, loaders: readonly AnyEngineLoader[]): RunningEngines {
  for (const name of ["tts", "asr"] as const) {
    if (loaders.filter((l) => l.engine === name).length > 1) throw new Error(`more than one engine loader registered for ${name}`);
  }
  const loaded: Array<LoadedEngine<unknown>> = [];
  const settled = (async () => {
    const device = await chooseDevice(ctx.config.runtime.provider, ctx.config.runtime.intra_op_threads);
    useDevice(device);
    ctx.log.info("device", { provider: device.provider, reason: device.reason, gpus: device.gpus.map((g) => g.model).join(", ") || undefined, threads: device.intraOpThreads });
    for (const state of [ctx.engines.tts, ctx.engines.asr]) state.setDetails(deviceDetails(device));
    const tts = loaders.find((l): l is EngineLoader<"tts"> => l.engine === "tts");
    const asr = loaders.find((l): l is EngineLoader<"asr"> => l.engine === "asr");
    await Promise.all([startOne(ctx, "tts", tts, device, loaded), startOne(ctx, "asr", asr, device, loaded)]);
  })();
  return {
    settled,
    async close(waitMs = 0) {
      await Promise.race([settled.catch(() => undefined), Bun.sleep(waitMs)]);
      await Promise.all(loaded.splice(0).map((engine) => engine.close?.().catch((error: unknown) => ctx.log.warn("engine close failed", { error: String(error) }))));
    },
  };
}
