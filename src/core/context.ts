/**
 * The shared context every front door and feature reads: config, store, engine states and
 * admission gates, metrics, the engine services once wired. A type only: the wiring
 * (src/app/context.ts) builds it, so features depend on this contract and never on src/app.
 */
import type { Database } from "bun:sqlite";
import type { AsrService } from "./asr.ts";
import type { SawtConfig } from "../config/config.ts";
import type { Logger } from "../log/logger.ts";
import type { Admission } from "../serving/admission.ts";
import type { EngineState } from "../serving/engine-state.ts";
import type { Metrics } from "../serving/metrics.ts";
import type { KeyStore } from "../store/keys.ts";
import type { RateLimiter } from "../store/rate-limits.ts";
import type { TtsService } from "./tts.ts";
import type { VoiceLibraryService } from "./voices.ts";

/** The engines a front door can call. */
export type EngineName = "tts" | "asr";

/** Shared state of one Sawt process. */
export interface AppContext {
  readonly config: SawtConfig;
  readonly db: Database;
  readonly keys: KeyStore;
  readonly rateLimiter: RateLimiter;
  readonly engines: { readonly [E in EngineName]: EngineState };
  readonly admission: { readonly [E in EngineName]: Admission };
  /** Prometheus metrics; engines call `metrics.observeInference(engine, seconds, audioSeconds)`. */
  readonly metrics: Metrics;
  readonly log: Logger;
  /** Built-in and cloned voices (D17); cloning is configured by the engines at start-up. */
  readonly voices: VoiceLibraryService;
  /** The TTS service, set by startEngines once it is built; front doors answer 503 until then. */
  tts?: TtsService;
  /** The ASR service, set by startEngines once it is built; front doors answer 503 until then. */
  asr?: AsrService;
  /** Set when shutdown begins. */
  shuttingDown: boolean;
}
