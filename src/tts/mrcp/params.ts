/**
 * speechsynth header fields (RFC 6787 §8.4) → Sawt's speech fields: Voice-Name, Speech-Language
 * (its dialect mapping is documented in docs/mrcp.md), Prosody-Rate → speed, and
 * Vendor-Specific-Parameters `sawt.dialect`. A SPEAK's own headers beat the channel's SET-PARAMS.
 */
import { type AudioCodec, swap16, synthesisEncodingOf } from "../../media/codec.ts";

/** Header names SET-PARAMS may set on a synthesizer channel. */
export const SYNTH_PARAMETERS: ReadonlySet<string> = new Set([
  "voice-name",
  "voice-gender",
  "voice-age",
  "voice-variant",
  "speech-language",
  "prosody-rate",
  "prosody-volume",
  "prosody-pitch",
  "kill-on-barge-in",
  "vendor-specific-parameters",
  "logging-tag",
  "speaker-profile",
  "completion-reason",
  "load-lexicon",
  "lexicon-search-order",
  "fetch-timeout",
  "audio-fetch-hint",
]);

/** Speech-Language → dialect or voice. Languages not listed leave the voice's own dialect. */
const LANGUAGES: Readonly<Record<string, { dialect?: string; voice?: string }>> = {
  "ar-sa": { dialect: "ar-najdi" },
  "ar-eg": { dialect: "ar-egyptian" },
  "ar-lb": { dialect: "ar-levantine" },
  "ar-sy": { dialect: "ar-levantine" },
  "ar-jo": { dialect: "ar-levantine" },
  "ar-ps": { dialect: "ar-levantine" },
  "en-us": { voice: "Yara_en" },
  en: { voice: "Yara_en" },
};

const RATES: Readonly<Record<string, number>> = {
  "x-slow": 0.5,
  slow: 0.75,
  medium: 1,
  default: 1,
  fast: 1.25,
  "x-fast": 1.5,
};

/** Prosody-Rate: a label, a relative number, or a percentage; undefined when unreadable. */
export function prosodyRate(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const text = value.trim().toLowerCase();
  if (text in RATES) return RATES[text];
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(text);
  if (percent) return Number(percent[1]) / 100;
  return /^\d+(?:\.\d+)?$/.test(text) ? Number(text) : undefined;
}

/** `name=value;name=value` of Vendor-Specific-Parameters. */
export function vendorParameters(value: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of (value ?? "").split(";")) {
    const eq = pair.indexOf("=");
    if (eq > 0)
      out.set(
        pair.slice(0, eq).trim().toLowerCase(),
        pair
          .slice(eq + 1)
          .trim()
          .replace(/^"(.*)"$/, "$1"),
      );
  }
  return out;
}

/**
 * The speech fields (REST names) of a SPEAK: its body, the headers over the channel's parameters,
 * and the codec's rate and encoding.
 */
export function speakFields(
  body: string,
  headers: ReadonlyMap<string, string>,
  params: ReadonlyMap<string, string>,
  codec: AudioCodec,
): Record<string, unknown> {
  const get = (name: string) => headers.get(name) ?? params.get(name);
  const language = get("speech-language")?.trim().toLowerCase();
  const mapped = language ? (LANGUAGES[language] ?? LANGUAGES[language.split("-")[0]!]) : undefined;
  const vendor = vendorParameters(get("vendor-specific-parameters"));
  return {
    input: body,
    voice: get("voice-name")?.trim() || mapped?.voice,
    dialect: vendor.get("sawt.dialect") ?? mapped?.dialect,
    speed: prosodyRate(get("prosody-rate")),
    response_format: "pcm",
    sample_rate: codec.rate,
    encoding: synthesisEncodingOf(codec),
  };
}

/** Whether a SPEAK may be cut by barge-in (Kill-On-Barge-In, default true). */
export function killOnBargeIn(headers: ReadonlyMap<string, string>, params: ReadonlyMap<string, string>): boolean {
  return (headers.get("kill-on-barge-in") ?? params.get("kill-on-barge-in") ?? "true").trim().toLowerCase() !== "false";
}

/** The body types SPEAK takes. */
export const SPEAK_TYPES: ReadonlySet<string> = new Set([
  "text/plain",
  "application/ssml+xml",
  "application/synthesis+ssml",
]);

/**
 * The codec's wire form of synthesis bytes: L16 is big-endian (RFC 3551), so s16le samples are
 * swapped, an odd byte carried over so no sample is split; G.711 bytes pass as they are.
 */
export function l16Wire(l16: boolean): (bytes: Uint8Array) => Uint8Array {
  if (!l16) return (bytes) => bytes;
  let odd: number | undefined;
  return (bytes) => {
    const joined = odd === undefined ? bytes : Uint8Array.of(odd, ...bytes);
    odd = joined.length % 2 ? joined[joined.length - 1] : undefined;
    return swap16(odd === undefined ? joined : joined.subarray(0, joined.length - 1));
  };
}
