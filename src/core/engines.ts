/**
 * The engine-loader contract features implement and start-up (src/app/engines.ts) runs: a loader
 * reads its model packs through the model registry (src/models/), opens and warms sessions and
 * returns the transport-free service. A broken pack the engine can do without is reported in
 * `brokenPacks`; when the engine cannot serve at all the loader throws {@link EngineLoadError}.
 * Kept out of src/app so features do not import the wiring.
 */
import type { AppContext, EngineName } from "./context.ts";
import type { AsrService } from "./asr.ts";
import type { Logger } from "../log/logger.ts";
import type { BrokenPack } from "../models/errors.ts";
import type { DeviceChoice } from "../onnx/devices.ts";
import type { TtsService } from "./tts.ts";

export type { BrokenPack } from "../models/errors.ts";

/** The engines a loader can load. */
export type { EngineName } from "./context.ts";

/** The service type each engine serves. */
export interface EngineServices {
  readonly tts: TtsService;
  readonly asr: AsrService;
}

/** What a loader hands back. */
export interface LoadedEngine<S> {
  readonly service: S;
  /** Health details of the engine (packs, voices, models…); device details are added for you. */
  readonly details?: Readonly<Record<string, unknown>>;
  /** Packs skipped because they are broken; the engine serves with the rest. */
  readonly brokenPacks?: readonly BrokenPack[];
  /** Releases sessions (and their worker threads) at shutdown. */
  close?(): Promise<void>;
}

/** What a loader gets. */
export interface EngineLoadContext {
  readonly app: AppContext;
  /** The execution provider decision; sessions from `createSession` already use it. */
  readonly device: DeviceChoice;
  readonly log: Logger;
}

/** Loads one engine. Register instances in src/app/engine-loaders.ts (the only wiring). */
export interface EngineLoader<K extends EngineName = EngineName> {
  readonly engine: K;
  /**
   * Optional: begins start-up work that needs neither the device decision nor the ports (e.g.
   * starting a worker thread), called first thing at start-up so it runs while they are
   * prepared. Must not throw; whatever it starts, `load` picks up.
   */
  prepare?(app: AppContext): void;
  /**
   * Loads packs through the model registry (src/models/), creates and warms sessions.
   * Throw (preferably {@link EngineLoadError} with the broken packs) when the engine cannot serve;
   * a broken pack the engine can do without goes into `brokenPacks` instead.
   */
  load(context: EngineLoadContext): Promise<LoadedEngine<EngineServices[K]>>;
}

/** Any registered loader. */
export type AnyEngineLoader = EngineLoader<"tts"> | EngineLoader<"asr">;

/** The engine cannot serve; `message` is the reason shown in health, `brokenPacks` what broke. */
export class EngineLoadError extends Error {
  constructor(
    message: string,
    readonly brokenPacks: readonly BrokenPack[] = [],
    /** Health details worth showing even though the engine failed (what was found, versions…). */
    readonly details: Readonly<Record<string, unknown>> = {},
    /** The engine has nothing to serve by configuration: it turns disabled, not failed. */
    readonly disabled = false,
  ) {
    super(message);
    this.name = "EngineLoadError";
  }
}

/** What a reload did to one engine (`POST /v1/admin/models/reload`, SIGHUP, `sawt models install`). */
export interface EngineReload {
  readonly engine: EngineName;
  /** `ready`/`failed`: the new generation's state; `kept`: the load failed, the old one serves on. */
  readonly outcome: "ready" | "failed" | "kept" | "absent";
  readonly generation: number;
  readonly reason?: string;
}

/** Loads every engine anew and swaps generations (the wiring hands it to the admin door). */
export type EngineReloader = (cause: string) => Promise<EngineReload[]>;
