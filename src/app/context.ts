/**
 * Everything a running Sawt shares between its front doors (REST, WebSocket, gRPC) and the CLI's
 * offline commands: config, store, engine states and admission gates. Built once by
 * {@link createAppContext}; transports only read it.
 */
import type { Database } from "bun:sqlite";
import type { SawtConfig } from "../config/config.ts";
import { Detail } from "../errors/taxonomy.ts";
import type { AsrService } from "../asr/types.ts";
import { log, type Logger } from "../log/logger.ts";
import { Admission } from "../runtime/admission.ts";
import { EngineState } from "../runtime/engine-state.ts";
import { openDatabase } from "../store/database.ts";
import { KeyStore } from "../store/keys.ts";
import { RateLimiter } from "../store/rate-limits.ts";
import type { TtsService } from "../tts/types.ts";

/** Shared state of one Sawt process. */
export interface AppContext {
  readonly config: SawtConfig;
  readonly db: Database;
  readonly keys: KeyStore;
  readonly rateLimiter: RateLimiter;
  readonly engines: { readonly tts: EngineState; readonly asr: EngineState };
  readonly admission: { readonly tts: Admission; readonly asr: Admission };
  readonly log: Logger;
  /** The TTS service, set by startEngines once it is built; REST answers 503 until then. */
  tts?: TtsService;
  /** The ASR service, set by startEngines once it is built; REST answers 503 until then. */
  asr?: AsrService;
  /** Set when shutdown begins. */
  shuttingDown: boolean;
}

/** Opens the store and creates engine states and admission gates from the config. */
export function createAppContext(config: SawtConfig): AppContext {
  const db = openDatabase(config.paths.data_dir);
  return {
    config,
    db,
    keys: new KeyStore(db),
    rateLimiter: new RateLimiter(db),
    engines: { tts: new EngineState("tts"), asr: new EngineState("asr") },
    admission: {
      tts: new Admission({
        name: "tts",
        concurrency: config.tts.concurrency,
        maxQueue: config.tts.max_queue,
        queueTimeoutMs: config.tts.queue_timeout_ms,
        busyDetail: Detail.ttsBusy,
        timeoutDetail: Detail.ttsTimeout,
        drainingDetail: "TTS engine is shutting down",
      }),
      asr: new Admission({
        name: "asr",
        concurrency: config.asr.concurrency,
        maxQueue: config.asr.max_queue,
        queueTimeoutMs: config.asr.queue_timeout_ms,
        busyDetail: Detail.asrBusy,
        timeoutDetail: Detail.asrTimeout,
        drainingDetail: "ASR engine is shutting down",
      }),
    },
    log,
    shuttingDown: false,
  };
}
