/**
 * Builds the TTS engine: probes libespeak-ng (the embedded engine and the phonemiser), loads the
 * packs, and wraps them in a {@link SawtTtsService}. `startTtsEngine` does this for a running
 * server (sets `ctx.tts`, engine details and state); `sawt tts` calls {@link createTtsEngine}.
 */
import type { AppContext } from "../app/context.ts";
import type { SawtConfig } from "../config/config.ts";
import type { Logger } from "../log/logger.ts";
import type { Admission } from "../runtime/admission.ts";
import type { EngineState } from "../runtime/engine-state.ts";
import { ESPEAK_SAMPLE_RATE } from "./embedded.ts";
import { probeEspeak, type EspeakStatus } from "./espeak/library.ts";
import { loadTtsPacks, type TtsPacks } from "./packs.ts";
import { parseSpeechRequest } from "./schema.ts";
import { SawtTtsService } from "./service.ts";

/** A built TTS engine. */
export interface TtsEngine {
  readonly service: SawtTtsService;
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
  deps: { admission: Admission; log: Logger; engine?: EngineState; observeInference?: (seconds: number, audioSeconds: number) => void },
): Promise<TtsEngine> {
  const logger = deps.log.child({ component: "tts" });
  const espeak = await probeEspeak();
  if (!espeak.available) logger.warn("espeak-ng unavailable: the embedded engine and espeak-phoneme packs cannot speak", { reason: espeak.reason });
  const packs = await loadTtsPacks(config.paths.models_dir, logger);
  const service = new SawtTtsService({
    strictVoices: config.tts.strict_voices,
    parseRequest: (body, headerDialect) => parseSpeechRequest(body, headerDialect, config),
    admission: deps.admission,
    packs,
    espeakSampleRate: espeak.available ? espeak.sampleRate : ESPEAK_SAMPLE_RATE,
    log: logger,
    engine: deps.engine,
    observeInference: deps.observeInference,
  });
  const textPacks = packs.loaded.filter((p) => p.phonemeType === "text");
  const unusable = espeak.available || textPacks.length > 0 ? undefined : `libespeak-ng unavailable (${espeak.reason}) and no text-phoneme voice pack installed`;
  const details = {
    espeak: espeak.available ? { available: true, version: espeak.version } : { available: false, reason: espeak.reason },
    voices: Object.fromEntries(service.listVoices().map((v) => [v.name, v.engine])),
    packs: packs.loaded,
    broken_packs: packs.broken,
    tashkeel: packs.tashkeel,
  };
  return { service, packs, espeak, unusable, details, release: () => packs.release() };
}

const running = new WeakMap<AppContext, TtsEngine>();

/** Starts TTS for a server: `ctx.tts`, engine details, ready (or failed with the reason). */
export async function startTtsEngine(ctx: AppContext): Promise<void> {
  try {
    const engine = await createTtsEngine(ctx.config, { admission: ctx.admission.tts, log: ctx.log, engine: ctx.engines.tts });
    running.set(ctx, engine);
    ctx.tts = engine.service;
    ctx.engines.tts.setDetails(engine.details);
    if (engine.unusable) ctx.engines.tts.set("failed", engine.unusable);
    else ctx.engines.tts.set("ready");
  } catch (error) {
    ctx.log.error("tts engine failed to start", { error: error instanceof Error ? error : String(error) });
    ctx.engines.tts.set("failed", error instanceof Error ? error.message : String(error));
  }
}

/** Frees the TTS sessions at shutdown. */
export async function stopTtsEngine(ctx: AppContext): Promise<void> {
  await running.get(ctx)?.release();
  running.delete(ctx);
}
