/**
 * Everything a running Sawt shares between its front doors (REST, WebSocket, gRPC) and the CLI's
 * offline commands: config, store, engine states and admission gates. Built once by
 * {@link createAppContext}; transports only read it.
 */
import type { Database } from "bun:sqlite";
import type { SawtConfig } from "../config/config.ts";
import { Detail } from "../errors/taxonomy.ts";
import { log, type Logger } from "../log/logger.ts";
import type { AsrService } from "../asr/types.ts";
import { Admission } from "../runtime/admission.ts";
import { EngineState } from "../runtime/engine-state.ts";
import { Metrics } from "../runtime/metrics.ts";
import type { TtsService } from "../tts/types.ts";
import { openDatabase } from "../store/database.ts";
import { KeyStore } from "../store/keys.ts";
import { RateLimiter } from "../store/rate-limits.ts";

/** Shared state of one Sawt process. */
export interface AppContext {
  readonly config: SawtConfig;
  readonly db: Database;
  readonly keys: KeyStore;
  readonly rateLimiter: RateLimiter;
  /** Engine states; `engines.tts.require()` gives the service or throws the right 503. */
  readonly engines: { readonly tts: EngineState<TtsService>; readonly asr: EngineState<AsrService> };
  readonly admission: { readonly tts: Admission; readonly asr: Admission };
  /** Prometheus metrics; engines call `metrics.observeInference(engine, seconds, audioSeconds)`. */
  readonly metrics: Metrics;
  readonly log: Logger;
  /** Set when shutdown begins. */
  shuttingDown: boolean;
}

/** Opens the store and creates engine states and admission gates from the config. */
export function createAppContext(config: SawtConfig): AppContext {
  const db = openDatabase(config.paths.data_dir);
  const engines = { tts: new EngineState<TtsService>("tts"), asr: new EngineState<AsrService>("asr") };
  const admission = {
    tts: new Admission({
      name: "tts",
      concurrency: config.tts.concurrency,
      maxQueue: config.tts.max_queue,
      queueTimeoutMs: config.tts.queue_timeout_ms,
      busyDetail: Detail.ttsBusy,
      timeoutDetail: Detail.ttsTimeout,
    }),
    asr: new Admission({
      name: "asr",
      concurrency: config.asr.concurrency,
      maxQueue: config.asr.max_queue,
      queueTimeoutMs: config.asr.queue_timeout_ms,
      busyDetail: Detail.asrBusy,
      timeoutDetail: Detail.asrTimeout,
    }),
  };
  return {
    config,
    db,
    keys: new KeyStore(db),
    rateLimiter: new RateLimiter(db),
    engines,
    admission,
    metrics: new Metrics({ engines, admission }),
    log,
    shuttingDown: false,
  };
}
