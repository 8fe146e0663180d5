/**
 * Engine start-up and model reload. Each engine (TTS, ASR) is loaded by an EngineLoader (contract
 * in src/core/engines.ts) registered in src/app/engine-loaders.ts: it reads its model packs,
 * opens and warms sessions, and returns the transport-free service, which start-up puts on the
 * context (`ctx.tts`, `ctx.asr`). Start-up runs every loader concurrently after the ports are
 * bound (health answers 503 "… engine not initialized" meanwhile) and moves each engine's state
 * initializing → ready, or → failed with the reason. A broken pack never takes other engines
 * down: a loader skips it and reports it (`brokenPacks`), or — when the engine cannot serve at
 * all — throws, and the reason and broken packs land in that engine's health details and the log.
 *
 * Reload (SIGHUP, `POST /v1/admin/models/reload`, `sawt models install|remove`): each engine's
 * loader runs again while the current generation keeps serving; once the new one is loaded and
 * warm, `ctx.tts`/`ctx.asr` is swapped to it in one assignment, so new calls use it. Calls
 * already running finish on the old generation (./generation.ts counts them), which is released
 * once they are done (or after `server.drain_timeout_ms`). A loader that cannot serve with the
 * packs now installed (EngineLoadError: the last ASR pack removed) turns the engine failed; any
 * other load error keeps the current generation serving and is reported.
 */
import {
  EngineLoadError,
  type AnyEngineLoader,
  type BrokenPack,
  type EngineLoader,
  type EngineName,
  type EngineReload,
  type EngineServices,
  type LoadedEngine,
} from "../core/engines.ts";
import { firstLine } from "../models/errors.ts";
import { chooseDevice, deviceDetails, type DeviceChoice } from "../onnx/devices.ts";
import { useDevice } from "../onnx/sessions.ts";
import type { AppContext } from "./context.ts";
import { Generation, trackCalls } from "./generation.ts";

/** What one engine did in a reload. */

/** Loaded engines of a running service. */
export interface RunningEngines {
  /** Settles when every engine is ready or failed. */
  readonly settled: Promise<void>;
  /** Loads every engine anew and swaps generations (one reload at a time; callers share one). */
  reload(cause: string): Promise<EngineReload[]>;
  /** Releases every loaded engine (waits for loads still in progress, up to `waitMs`). */
  close(waitMs?: number): Promise<void>;
}

const reloaders = new WeakMap<AppContext, (cause: string) => Promise<EngineReload[]>>();

/** Reloads the engines of the server running `ctx` (the admin route's entry point). */
export function reloadEngines(ctx: AppContext, cause: string): Promise<EngineReload[]> {
  const reload = reloaders.get(ctx);
  if (!reload) return Promise.reject(new Error("no engines are running"));
  return reload(cause);
}

function brokenPacksOf(error: unknown): BrokenPack[] {
  return error instanceof EngineLoadError ? [...error.brokenPacks] : [];
}

/** One engine's loads, start-up and reloads alike, and its generations. */
class EngineSlot<K extends EngineName> {
  current: Generation<EngineServices[K]> | undefined;
  private count = 0;
  private readonly retiring = new Set<Promise<void>>();

  constructor(
    private readonly ctx: AppContext,
    readonly name: K,
    private readonly loader: EngineLoader<K> | undefined,
  ) {}

  private setService(service: EngineServices[K] | undefined): void {
    (this.ctx as { [P in EngineName]?: EngineServices[P] })[this.name] = service;
  }

  /**
   * Loads a generation and puts it in service; `first` is start-up, where `doorsOpen` settles
   * once every port is bound: the load runs meanwhile, but the state turns ready only after it,
   * so /ready and gRPC health never report a door that is not open yet.
   */
  async load(device: DeviceChoice, first: boolean, doorsOpen?: Promise<void>): Promise<EngineReload> {
    const { ctx, name } = this;
    const state = ctx.engines[name];
    // Whether the ports bound (always, outside start-up); start-up awaits it before turning ready.
    const opened = async (): Promise<boolean> => {
      try {
        await doorsOpen;
        return true;
      } catch {
        return false;
      }
    };
    if (!this.loader) {
      // No loader registered for this engine in this build: nothing to load. The state turns
      // ready so /ready reflects the engines that exist; with no service set, its routes answer
      // 503 "… engine not initialized" (src/edge/readiness.ts).
      if (first && (await opened())) state.ready({ loaded: false });
      return { engine: name, outcome: "absent", generation: 0 };
    }
    const number = ++this.count;
    const started = performance.now();
    const base = { ...deviceDetails(device), generation: number };
    let result: LoadedEngine<EngineServices[K]>;
    try {
      result = await this.loader.load({ app: ctx, device, log: ctx.log });
    } catch (error) {
      const reason = firstLine(error);
      const broken = brokenPacksOf(error);
      const details = { ...base, ...(error instanceof EngineLoadError ? error.details : {}), broken_packs: broken };
      if (!first && !(error instanceof EngineLoadError)) {
        ctx.log.error("engine reload failed, previous generation serves on", { engine: name, reason });
        this.count--;
        return { engine: name, outcome: "kept", generation: this.current?.number ?? 0, reason };
      }
      const old = this.current;
      this.current = undefined;
      this.setService(undefined);
      const disabled = error instanceof EngineLoadError && error.disabled;
      if (first && disabled) state.disable(reason, details);
      else if (first) state.fail(reason, details);
      else state.renew({ ready: false, reason, disabled }, details);
      if (old) this.retire(old);
      const packs = broken.map((b) => `${b.pack}: ${b.reason}`).join("; ") || undefined;
      ctx.log.error("engine failed", { engine: name, generation: number, reason, broken_packs: packs });
      return { engine: name, outcome: "failed", generation: number, reason };
    }
    const ms = Math.round(performance.now() - started);
    if (first && !(await opened())) {
      await result.close?.(); // the ports did not bind: start-up failed, never serve
      return { engine: name, outcome: "failed", generation: number, reason: "start-up failed" };
    }
    const broken = [...(result.brokenPacks ?? [])];
    if (state.state === "draining") {
      await result.close?.(); // shutdown began while loading: never serve
      return { engine: name, outcome: "failed", generation: number, reason: "shutting down" };
    }
    const generation = new Generation(number, result);
    const old = this.current;
    this.current = generation;
    // The service first, then the state: a request that sees "ready" always finds the service.
    const current = () =>
      (this.ctx as { [P in EngineName]?: EngineServices[P] })[this.name] as EngineServices[K] | undefined;
    this.setService(trackCalls(result.service, generation as Generation<unknown>, current));
    const details = { ...base, ...result.details, broken_packs: broken };
    if (first) state.ready(details);
    else state.renew({ ready: true }, details);
    if (old) this.retire(old);
    // Loaders log each broken pack as they skip it; this line sums up what serves without it.
    const packs = broken.map((b) => b.pack).join(", ") || undefined;
    ctx.log.info("engine ready", { engine: name, generation: number, ms, broken_packs: packs });
    return { engine: name, outcome: "ready", generation: number };
  }

  /** Releases `old` once its calls are done (or the drain deadline passes). */
  private retire(old: Generation<EngineServices[K]>): void {
    const { ctx, name } = this;
    old.retired = true;
    const waitMs = ctx.config.server.drain_timeout_ms;
    const retiring = (async () => {
      const idle = await old.idle(waitMs);
      if (!idle)
        ctx.log.warn("old engine generation still busy, released anyway", {
          engine: name,
          generation: old.number,
          calls: old.calls,
        });
      await old.loaded
        .close?.()
        .catch((error: unknown) => ctx.log.warn("engine close failed", { engine: name, error: String(error) }));
      ctx.log.info("engine generation released", { engine: name, generation: old.number });
    })();
    this.retiring.add(retiring);
    void retiring.finally(() => this.retiring.delete(retiring));
  }

  /** Releases the current generation and waits for retiring ones. */
  async close(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    await Promise.all([...this.retiring]);
    await current?.loaded
      .close?.()
      .catch((error: unknown) => this.ctx.log.warn("engine close failed", { engine: this.name, error: String(error) }));
  }
}

/**
 * Chooses the device, then loads every engine concurrently with the registered loaders. Start-up
 * calls it before binding the ports so loading overlaps with that; `doorsOpen` (resolved once
 * every port is bound, rejected when binding failed) holds the engine states back until then.
 */
export function startEngines(
  ctx: AppContext,
  loaders: readonly AnyEngineLoader[],
  doorsOpen?: Promise<void>,
): RunningEngines {
  for (const name of ["tts", "asr"] as const) {
    if (loaders.filter((l) => l.engine === name).length > 1)
      throw new Error(`more than one engine loader registered for ${name}`);
  }
  doorsOpen?.catch(() => undefined); // a failed start is handled by the caller, not here
  for (const loader of loaders) loader.prepare?.(ctx);
  const slots = {
    tts: new EngineSlot(
      ctx,
      "tts",
      loaders.find((l): l is EngineLoader<"tts"> => l.engine === "tts"),
    ),
    asr: new EngineSlot(
      ctx,
      "asr",
      loaders.find((l): l is EngineLoader<"asr"> => l.engine === "asr"),
    ),
  };
  let device: DeviceChoice | undefined;
  const settled = (async () => {
    device = await chooseDevice(ctx.config.runtime.provider, ctx.config.runtime.intra_op_threads);
    useDevice(device, { liftConvolutions: ctx.config.runtime.lift_convolutions });
    ctx.log.info("device", {
      provider: device.provider,
      reason: device.reason,
      gpus: device.gpus.map((g) => g.model).join(", ") || undefined,
      threads: device.intraOpThreads,
    });
    for (const state of [ctx.engines.tts, ctx.engines.asr]) state.setDetails(deviceDetails(device));
    await Promise.all([slots.tts.load(device, true, doorsOpen), slots.asr.load(device, true, doorsOpen)]);
  })();
  // Reloads run one at a time; a reload asked for while one runs waits and then runs once for
  // every caller that asked meanwhile (the packs they installed are all on disk by then).
  let running: Promise<EngineReload[]> = settled.then(() => []);
  let queued: Promise<EngineReload[]> | undefined;
  const reload = (cause: string): Promise<EngineReload[]> => {
    if (queued) return queued;
    const next = running
      .catch(() => [])
      .then(async () => {
        queued = undefined;
        if (ctx.shuttingDown || !device) return [];
        ctx.log.info("models reload", { cause });
        return Promise.all([slots.tts.load(device, false), slots.asr.load(device, false)]);
      });
    queued = next;
    running = next;
    return next;
  };
  reloaders.set(ctx, reload);
  return {
    settled,
    reload,
    async close(waitMs = 0) {
      await Promise.race([settled.catch(() => undefined), Bun.sleep(waitMs)]);
      await Promise.race([running.catch(() => undefined), Bun.sleep(waitMs)]);
      await Promise.all([slots.tts.close(), slots.asr.close()]);
    },
  };
}
