/**
 * The built-in voice table: each voice's language and dialects, and how a voice list shows it.
 * In core because the TTS feature (resolution, D1–D5), the voice library's listing and the model
 * catalog all read it, and features import each other only through src/core.
 */
import { type BuiltinVoice, type Dialect, type RendererName, type VoiceInfo, VOICES } from "./tts.ts";

/** What the registry knows about one built-in voice. */
export interface VoiceSpec {
  readonly name: BuiltinVoice;
  /** BCP-47-ish language of the voice. */
  readonly language: "ar" | "en";
  /** Dialects the voice covers; empty for the English voice. */
  readonly dialects: readonly Dialect[];
  /** The dialect used when the request names none (D4). */
  readonly primaryDialect: Dialect | undefined;
}

/** The spec's voice table. */
export const VOICE_SPECS: Readonly<Record<BuiltinVoice, VoiceSpec>> = Object.freeze({
  Yara: { name: "Yara", language: "ar", dialects: ["ar-najdi", "ar-hijazi", "ar-qassimi"], primaryDialect: "ar-najdi" },
  Sherine: { name: "Sherine", language: "ar", dialects: ["ar-egyptian"], primaryDialect: "ar-egyptian" },
  Myriam: { name: "Myriam", language: "ar", dialects: ["ar-levantine"], primaryDialect: "ar-levantine" },
  Yara_en: { name: "Yara_en", language: "en", dialects: [], primaryDialect: undefined },
});

/** A built-in voice as the voice list shows it, spoken by `engine`. */
export function builtinVoiceInfo(voice: BuiltinVoice, engine: RendererName, status?: VoiceInfo["status"]): VoiceInfo {
  const spec = VOICE_SPECS[voice];
  return {
    voice_id: voice,
    name: voice,
    type: "builtin",
    language: spec.language,
    dialects: [...spec.dialects],
    engine,
    ...(status ? { status } : {}),
  };
}

/** A built-in voice by name, case-insensitively ("yara" → Yara); undefined when unknown. */
export function builtinVoice(name: string): BuiltinVoice | undefined {
  const wanted = name.trim().toLowerCase();
  return VOICES.find((voice) => voice.toLowerCase() === wanted);
}
