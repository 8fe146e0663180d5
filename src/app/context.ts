/**
 * Everything a running Sawt shares between its front doors (REST, WebSocket, gRPC) and the CLI's
 * offline commands: config, store, engine states and admission gates. Built once by
 * {@link createAppContext}; transports only read it. The type itself is src/core/context.ts.
 */
import { workerSlots } from "../asr/jobs/worker/protocol.ts";
import type { SawtConfig } from "../config/config.ts";
import type { AppContext } from "../core/context.ts";
import { Detail } from "../errors/taxonomy.ts";
import { log } from "../log/logger.ts";
import { Admission } from "../serving/admission.ts";
import { EngineState } from "../serving/engine-state.ts";
import { Metrics } from "../serving/metrics.ts";
import { openDatabase, openMemoryDatabase } from "../store/database.ts";
import { KeyStore } from "../store/keys.ts";
import { RateLimiter } from "../store/rate-limits.ts";
import { VoiceLibrary } from "../voices/service.ts";
import { ClonedVoiceStore } from "../voices/store.ts";

// The wiring and tests name the context from here; features import it from src/core.
export type { AppContext } from "../core/context.ts";

/** Which process a context serves: the service, or the jobs worker it starts (src/app/jobs-worker.ts). */
export interface ContextOptions {
  readonly role?: "service" | "jobs-worker";
}

/** Opens the store and creates engine states and admission gates from the config. */
export function createAppContext(config: SawtConfig, options: ContextOptions = {}): AppContext {
  // The jobs worker never opens the service's store: it has no keys to check and must not hold
  // a lock the service would wait on while it runs at background priority.
  const worker = options.role === "jobs-worker";
  const db = worker ? openMemoryDatabase() : openDatabase(config.paths.data_dir);
  const voiceStore = new ClonedVoiceStore(db);
  // A voice still training when the process stopped can never finish: its samples are gone.
  voiceStore.failInterrupted("training was interrupted by a restart; create the voice again");
  const engines = { tts: new EngineState("tts"), asr: new EngineState("asr") };
  const admission = {
    tts: new Admission({
      name: "tts",
      concurrency: config.tts.concurrency,
      maxQueue: config.tts.max_queue,
      queueTimeoutMs: config.tts.queue_timeout_ms,
      busyDetail: Detail.ttsBusy,
      timeoutDetail: Detail.ttsTimeout,
    }),
    // The jobs worker's gate runs exactly the files the service sends it at once (no live work
    // reaches that process); the service's gate is for live work only.
    asr: new Admission({
      name: "asr",
      concurrency: worker ? workerSlots(config) : config.asr.concurrency,
      maxQueue: worker ? workerSlots(config) : config.asr.max_queue,
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
    voices: new VoiceLibrary(
      voiceStore,
      { encoder: undefined, ttsEmbeddingDim: undefined },
      log.child({ component: "voices" }),
    ),
    shuttingDown: false,
  };
}
