/**
 * The engine loaders of this build, at most one per engine (see src/core/engines.ts for the
 * contract). The TTS and ASR features register theirs here, e.g.
 * `export const engineLoaders: readonly AnyEngineLoader[] = [ttsEngineLoader, asrEngineLoader];`.
 */
import { asrEngineLoader } from "../asr/loader.ts";
import { ttsEngineLoader } from "../tts/loader.ts";
import type { AnyEngineLoader } from "../core/engines.ts";

/** Every engine loader started by `sawt serve`. */
export const engineLoaders: readonly AnyEngineLoader[] = [ttsEngineLoader, asrEngineLoader];
