/**
 * espeak-ng's own formant voices as Sawt's last-resort engine (D5): when no neural pack can
 * speak, Yara, Sherine and Myriam are distinct Arabic espeak variants and Yara_en an English
 * one, so a fresh install speaks with no models. Output is mono 16-bit PCM at espeak's rate.
 */

import { cstring, withEspeak } from "./library.ts";

/** espeak_PARAMETER ids (speak_lib.h). */
const RATE = 1;
const PITCH = 3;
const RANGE = 4;
/** espeak_POSITION_TYPE POS_CHARACTER, and espeakCHARS_UTF8. */
const POS_CHARACTER = 1;
const CHARS_UTF8 = 1;

/** espeak's default speaking rate in words per minute; `speed` 1.0 maps to it. */
export const ESPEAK_DEFAULT_RATE = 175;
/** espeak-ng's accepted rate range (espeakRATE_MINIMUM / espeakRATE_MAXIMUM). */
const RATE_LIMITS = [80, 450] as const;

/** One Sawt voice rendered by espeak: a voice+variant name and pitch settings (0–100, 50 = voice default). */
export interface EspeakVoiceProfile {
  /** espeak voice, optionally with a variant from espeak-ng-data/voices/!v ("ar+f2"). */
  readonly voice: string;
  /** Base pitch, espeakPITCH. */
  readonly pitch: number;
  /** Pitch range (intonation), espeakRANGE. */
  readonly range: number;
}

/**
 * Sawt voices → espeak settings. The female variants differ in formants (f2: smoother, f4:
 * brighter, f3: breathier) and the pitch settings spread the three Arabic voices apart so a
 * listener — and a zero-crossing test — can tell them apart.
 */
export const ESPEAK_VOICE_PROFILES = {
  Yara: { voice: "ar+f2", pitch: 60, range: 60 },
  Sherine: { voice: "ar+f4", pitch: 45, range: 75 },
  Myriam: { voice: "ar+f3", pitch: 75, range: 45 },
  Yara_en: { voice: "en-us+f2", pitch: 60, range: 60 },
} as const satisfies Record<string, EspeakVoiceProfile>;

/** A Sawt voice espeak can speak. */
export type EspeakVoiceName = keyof typeof ESPEAK_VOICE_PROFILES;

/** Options of {@link synthesizeEspeak}. */
export interface EspeakSynthOptions {
  /** Speaking-rate multiplier, clamped to [0.5, 2.0] as D6 requires (default 1). */
  readonly speed?: number;
}

/** Synthesised audio: mono signed 16-bit samples. */
export interface EspeakAudio {
  readonly samples: Int16Array;
  readonly sampleRate: number;
}

/** The espeak rate (wpm) for a speed multiplier, clamped to D6 and to espeak's limits. */
export function espeakRate(speed = 1): number {
  const clamped = Number.isFinite(speed) ? Math.min(2, Math.max(0.5, speed)) : 1;
  return Math.min(RATE_LIMITS[1], Math.max(RATE_LIMITS[0], Math.round(ESPEAK_DEFAULT_RATE * clamped)));
}

/**
 * Speaks `text` with an espeak voice profile (or a Sawt voice name), in its turn in the espeak
 * queue; the samples' buffer is transferred from the worker, not copied.
 */
export function synthesizeEspeak(
  text: string,
  profile: EspeakVoiceProfile | EspeakVoiceName,
  options: EspeakSynthOptions = {},
): Promise<EspeakAudio> {
  const settings = typeof profile === "string" ? ESPEAK_VOICE_PROFILES[profile] : profile;
  return withEspeak(async (espeak) => {
    const samples = await espeak.synthesize(text, {
      voice: settings.voice,
      rate: espeakRate(options.speed),
      pitch: settings.pitch,
      range: settings.range,
    });
    return { samples, sampleRate: espeak.sampleRate };
  });
}
