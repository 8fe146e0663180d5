/**
 * The voice registry and the resolution rules D1–D5: which voice, dialect and engine a request
 * actually gets, and why (X-TTS-Fallback). Pure: what is installed is passed in, so every rule is
 * testable without models and the same answer serves REST, gRPC, WebSocket and `sawt tts`.
 */
import { AppError } from "../errors/taxonomy.ts";
import { builtinVoice, builtinVoiceInfo, VOICE_SPECS } from "../core/voice-table.ts";
import {
  DEFAULT_VOICE,
  VOICES,
  type BuiltinVoice,
  type Dialect,
  type SpeechRequest,
  type RendererName,
} from "./types.ts";

export { builtinVoice, builtinVoiceInfo, VOICE_SPECS, type VoiceSpec } from "../core/voice-table.ts";

/** The voice that speaks each dialect (D4). */
export const DIALECT_VOICE: Readonly<Record<Dialect, BuiltinVoice>> = Object.freeze({
  "ar-najdi": "Yara",
  "ar-hijazi": "Yara",
  "ar-qassimi": "Yara",
  "ar-egyptian": "Sherine",
  "ar-levantine": "Myriam",
});

/** The 400 detail under `tts.strict_voices` (D1). */
export const INVALID_VOICE_DETAIL = `Invalid voice. Allowed: ${VOICES.join(", ")}`;

/** Which neural packs are installed and working, by the voice they serve. */
export type InstalledPacks = (
  voice: BuiltinVoice,
) => { readonly engine: Exclude<RendererName, "espeak-ng" | "cloned"> } | undefined;

/** A resolved request: what speaks it, with what, and why it differs from what was asked. */
export interface VoiceResolution {
  /** The voice reported to the client (X-TTS-Voice). */
  readonly voice: BuiltinVoice;
  /** The dialect reported (X-TTS-Dialect); "en" for the English voice. */
  readonly dialect: Dialect | "en";
  readonly engine: RendererName;
  /** The voice whose neural pack speaks; undefined when espeak-ng speaks `voice` itself. */
  readonly pack: BuiltinVoice | undefined;
  /** Why the result differs from the request (X-TTS-Fallback), reasons joined by "; ". */
  readonly fallback: string | undefined;
  /** Set when a cloned voice (D17) speaks: its id (reported as the voice) and embedding. */
  readonly cloned?: { readonly id: string; readonly embedding: Float32Array };
}

/**
 * Resolves voice × dialect × installed packs:
 * D1 unknown/removed voice → Yara (strict: 400); D4 explicit dialect → that dialect, voice kept
 * if it covers it else the dialect's voice; no dialect → the voice's primary dialect; Yara_en
 * ignores dialect; D5 voice without a pack → Yara's pack, and with no Yara pack either espeak-ng
 * speaks the voice itself. The English voice never borrows Yara's Arabic pack: an Arabic
 * phonemiser cannot read English, so espeak-ng's English voice speaks instead.
 */
export function resolveVoice(
  request: Pick<SpeechRequest, "voice" | "dialect">,
  installed: InstalledPacks,
  strictVoices: boolean,
): VoiceResolution {
  const reasons: string[] = [];
  let voice = builtinVoice(request.voice);
  if (voice === undefined) {
    if (strictVoices) throw new AppError("bad_request", INVALID_VOICE_DETAIL);
    // The requested name is user text: it never goes into a header, only a fixed reason does.
    reasons.push(`unknown voice, default ${DEFAULT_VOICE} used`);
    voice = DEFAULT_VOICE;
  }
  if (voice === "Yara_en") return withPack(voice, "en", installed, reasons);

  let dialect = request.dialect;
  if (dialect === undefined) dialect = VOICE_SPECS[voice].primaryDialect!;
  else if (!VOICE_SPECS[voice].dialects.includes(dialect)) {
    const speaker = DIALECT_VOICE[dialect];
    reasons.push(`${voice} does not speak ${dialect}, ${speaker} used`);
    voice = speaker;
  }
  return withPack(voice, dialect, installed, reasons);
}

function withPack(
  voice: BuiltinVoice,
  dialect: Dialect | "en",
  installed: InstalledPacks,
  reasons: string[],
): VoiceResolution {
  const own = installed(voice);
  if (own) return done(voice, dialect, own.engine, voice, reasons);
  if (voice !== DEFAULT_VOICE && voice !== "Yara_en") {
    const yara = installed(DEFAULT_VOICE);
    if (yara) {
      // Yara's pack speaks Yara's dialects only; report what is really heard.
      const heard = VOICE_SPECS.Yara.dialects.includes(dialect as Dialect) ? dialect : VOICE_SPECS.Yara.primaryDialect!;
      reasons.push(`${voice} pack not installed, ${DEFAULT_VOICE} pack used`);
      return done(DEFAULT_VOICE, heard, yara.engine, DEFAULT_VOICE, reasons);
    }
  }
  reasons.push(
    voice === DEFAULT_VOICE || voice === "Yara_en"
      ? `${voice} pack not installed, espeak-ng used`
      : `no ${voice} or ${DEFAULT_VOICE} pack installed, espeak-ng used`,
  );
  return done(voice, dialect, "espeak-ng", undefined, reasons);
}

function done(
  voice: BuiltinVoice,
  dialect: Dialect | "en",
  engine: RendererName,
  pack: BuiltinVoice | undefined,
  reasons: readonly string[],
): VoiceResolution {
  return { voice, dialect, engine, pack, fallback: reasons.length > 0 ? reasons.join("; ") : undefined };
}
