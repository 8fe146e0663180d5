/**
 * Builds the TTS engine: probes libespeak-ng (the embedded engine and the phonemiser), loads the
 * packs, and wraps them in a {@link TtsEngineService}. {@link ttsEngineLoader} does this for a
 * running server (start-up sets `ctx.tts`, details and state); `sawt tts` calls
 * {@link createTtsEngine}.
 */
import type { AppContext } from "../core/context.ts";
import { EngineLoadError, type EngineLoader } from "../core/engines.ts";
import type { SawtConfig } from "../config/config.ts";
import type { Logger } from "../log/logger.ts";
import { residentMbOf } from "../onnx/session-memory.ts";
import type { Admission } from "../serving/admission.ts";
import { ESPEAK_SAMPLE_RATE } from "./embedded.ts";
import { probeEspeak, type EspeakStatus } from "./espeak/library.ts";
import { LexiconStore, type LexiconEntry } from "./lexicon/store.ts";
import { loadTtsPacks, type TtsPacks } from "./packs.ts";
import { TtsEngineService } from "./service.ts";
import { firstLine } from "../models/errors.ts";
import { packsOfRole } from "../models/inspect.ts";
import { loadPack } from "../models/load.ts";
import { ENCODER_MODEL_MISSING, type LoadedSpeakerEncoder as SpeakerEncoder } from "../core/voices.ts";
import { admit } from "../edge/auth.ts";
import type { ApiKeyRecord } from "../store/keys.ts";
import { codePointLength } from "./frontend/length.ts";
import { assertAllowedSpeech, contentFilterFor, textTooLong } from "./schema.ts";

/** A built TTS engine. */
export interface TtsEngine {
  readonly service: TtsEngineService;
  readonly packs: TtsPacks;
  readonly espeak: EspeakStatus;
  /** Why it cannot speak at all; undefined when it can. */
  readonly unusable: string | undefined;
  /** Health details: what serves, what is broken. */
  readonly details: Record<string, unknown>;
  release(): Promise<void>;
}

/** Loads packs and espeak-ng and builds the service. */
export async function createTtsEngine(
  config: SawtConfig,
  deps: {
    admission: Admission;
    log: Logger;
    observeInference?: (seconds: number, audioSeconds: number) => void;
    clonedEmbedding?: (keyId: string, voiceId: string) => Float32Array | undefined;
    lexicon?: (keyId: string) => readonly LexiconEntry[];
    admit?: (key: ApiKeyRecord) => void;
  },
): Promise<TtsEngine> {
  const logger = deps.log.child({ component: "tts" });
  const espeak = await probeEspeak();
  if (!espeak.available)
    logger.warn("espeak-ng unavailable: the embedded engine and espeak-phoneme packs cannot speak", {
      reason: espeak.reason,
    });
  const packs = await loadTtsPacks(config.paths.models_dir, logger, {
    tashkeel: config.tts.tashkeel,
    parallelRuns: config.tts.concurrency,
    packSessions: config.runtime.pack_sessions,
  });
  const service = new TtsEngineService({
    strictVoices: config.tts.strict_voices,
    admission: deps.admission,
    packs,
    espeakSampleRate: espeak.available ? espeak.sampleRate : ESPEAK_SAMPLE_RATE,
    diacritiser: packs.diacritiser,
    tashkeelSource: packs.tashkeelSource,
    lexicon: deps.lexicon,
    log: logger,
    observeInference: deps.observeInference,
    clonedEmbedding: deps.clonedEmbedding,
    admit: deps.admit,
    streamLimits: {
      maxContexts: config.tts.stream_max_contexts,
      idleMs: config.tts.stream_idle_s * 1000,
      maxQueuedChars: config.tts.stream_max_queued_chars,
    },
    checkSpeech: (text, voice) => {
      if (text.length > config.tts.max_input_chars && codePointLength(text) > config.tts.max_input_chars)
        throw textTooLong(config);
      assertAllowedSpeech(text, voice, contentFilterFor(config.tts.blocked_patterns));
    },
  });
  const textPacks = packs.loaded.filter((p) => p.phonemeType === "text");
  const unusable =
    espeak.available || textPacks.length > 0
      ? undefined
      : `libespeak-ng unavailable (${espeak.reason}) and no text-phoneme voice pack installed`;
  const details = {
    broken_packs: packs.broken,
    espeak: espeak.available
      ? { available: true, version: espeak.version }
      : { available: false, reason: espeak.reason },
    voices: Object.fromEntries(service.listVoices().map((v) => [v.name, v.engine])),
    packs: packs.loaded,
    // What each voice's sessions hold in memory now (src/onnx/session-memory.ts).
    resident_mb: residentMbOf(packs.loaded.map((p) => p.name)),
    tashkeel: packs.diacritiser !== undefined,
    tashkeel_source: packs.tashkeelSource,
  };
  return { service, packs, espeak, unusable, details, release: () => packs.release() };
}

/**
 * The TTS engine loader (src/app/engine-loaders.ts): builds the engine for a server and enables
 * cloning. Broken packs are skipped and reported; when nothing can speak at all the engine fails
 * with the reason, its details (espeak, voices, packs) still shown in health.
 */
export const ttsEngineLoader: EngineLoader<"tts"> = {
  engine: "tts",
  // espeak-ng's worker starts and initialises the library while the device is probed and the
  // ports bind; the probe in createTtsEngine then finds it open.
  prepare() {
    void probeEspeak();
  },
  async load({ app }) {
    const lexicon = new LexiconStore(app.db);
    const engine = await createTtsEngine(app.config, {
      admission: app.admission.tts,
      log: app.log,
      clonedEmbedding: (keyId, voiceId) => app.voices.embedding(keyId, voiceId),
      lexicon: (keyId) => lexicon.list(keyId),
      observeInference: (seconds, audioSeconds) => app.metrics.observeInference("tts", seconds, audioSeconds),
      admit: (key) => void admit(app, key),
    });
    const cloning = await configureCloning(app, engine);
    const details: Record<string, unknown> = { ...engine.details, cloning: cloning.detail };
    const close = async () => {
      await engine.release();
      await cloning.encoder?.release();
    };
    if (engine.unusable) {
      await close();
      throw new EngineLoadError(engine.unusable, engine.packs.broken, details);
    }
    return { service: engine.service, details, brokenPacks: engine.packs.broken, close };
  },
};

/**
 * Enables voice cloning (D17) when a speaker-encoder pack is installed and a voice pack takes an
 * embedding of its size; returns the health detail saying whether and why not, and the encoder
 * to release at shutdown.
 */
async function configureCloning(
  ctx: AppContext,
  engine: TtsEngine,
): Promise<{ detail: Record<string, unknown>; encoder: SpeakerEncoder | undefined }> {
  const ttsEmbeddingDim = engine.packs.loaded.find((p) => p.embeddingDim !== undefined)?.embeddingDim;
  let encoder: SpeakerEncoder | undefined;
  let problem: string | undefined;
  // The same reading of the models folder the voice packs were loaded from (one inspection per start).
  const pack = packsOfRole(engine.packs.inspection, "speaker-encoder")[0];
  // A speaker-encoder folder without a model is no encoder at all, not a broken one.
  const absent = pack === undefined || (!pack.ok && pack.reason === ENCODER_MODEL_MISSING);
  const result = absent ? undefined : pack.ok ? await loadPack(pack) : pack;
  if (result?.ok) encoder = result.model as SpeakerEncoder;
  else if (result) {
    problem = `speaker-encoder pack broken: ${firstLine(result.reason)}`;
    ctx.log.warn("speaker-encoder pack skipped", { reason: problem });
  }
  ctx.voices.configure({ encoder, ttsEmbeddingDim });
  const reason = problem ?? ctx.voices.unavailableReason();
  return {
    detail: reason ? { available: false, reason } : { available: true, embedding_dim: ttsEmbeddingDim },
    encoder,
  };
}
