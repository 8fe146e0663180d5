/**
 * What a key may list: built-in voices, then its cloned voices. Every front door lists the same
 * (GET /v1/tts/voices, gRPC ListVoices), so it lives here rather than in either of them.
 */
import type { AppContext } from "../core/context.ts";
import { VOICES, type VoiceInfo } from "../core/tts.ts";
import { builtinVoiceInfo } from "../core/voice-table.ts";

/** Built-in voices when the TTS engine is not up yet (listing never needs it). */
export const STATIC_BUILTINS: readonly VoiceInfo[] = VOICES.map((voice) => builtinVoiceInfo(voice, "espeak-ng"));

/** What GET /v1/tts/voices and gRPC ListVoices list for a key: built-in voices, then its cloned voices. */
export function voicesFor(ctx: AppContext, keyId: string): ReturnType<AppContext["voices"]["list"]> {
  return ctx.voices.list(keyId, ctx.tts?.listVoices(keyId) ?? STATIC_BUILTINS);
}
