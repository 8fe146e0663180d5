/**
 * Deepgram's TTS query (`/v1/speak?model=&encoding=&sample_rate=&container=…`, REST and WebSocket
 * alike) → Sawt's speech settings, field for field as developers.deepgram.com documents them:
 *
 * | encoding | rates (Hz) | container | Sawt |
 * |---|---|---|---|
 * | linear16 (default) | 8000, 16000, 24000 (default), 32000, 48000 | none (default), wav | pcm / wav, s16le |
 * | mulaw, alaw | 8000 (default), 16000, 24000, 48000 | none (default), wav | pcm / wav, G.711 |
 * | mp3 | 22050 only | none | mp3 |
 * | opus | 48000 only | ogg (default) | opus (Ogg) |
 * | flac | 8000–48000 (default 48000) | none | flac |
 * | aac | 22050 only | none | aac (ADTS) |
 *
 * `model` names the voice: a Sawt voice (`Yara`, `Sherine`, `Myriam`, `Yara_en`, a cloned voice id)
 * as it is; Deepgram's English Aura models (`aura-…-en`, `aura-2-…-en`) speak as `Yara_en`; any
 * other name falls back as an unknown voice does (D1: Yara, and the answer says so). `speed` is
 * Sawt's speed (clamped 0.5–2); `bit_rate`, `mip_opt_out` and `tag` are accepted and do not change
 * the speech; `callback` is refused (Sawt makes no outbound request, D18).
 */
import type { SawtConfig } from "../../config/config.ts";
import { DEFAULT_VOICE, type SpeechContextRequest } from "../../core/tts.ts";
import type { FieldNaming } from "../../errors/fields.ts";
import { AppError } from "../../errors/taxonomy.ts";
import { parseSpeechSettings } from "../schema.ts";

/** How the door names the fields of its query in 422 details. */
export const QUERY_FIELDS: FieldNaming = { root: "query", rename: { input: "text" } };

interface EncodingSpec {
  readonly format: "pcm" | "mp3" | "opus" | "flac" | "aac";
  readonly sampleEncoding?: "pcm_s16le" | "pcm_mulaw" | "pcm_alaw";
  readonly rates: readonly number[] | "range";
  readonly defaultRate: number;
  readonly containers: readonly string[];
}

const G711_RATES = [8000, 16000, 24000, 48000];
const ENCODINGS: Readonly<Record<string, EncodingSpec>> = {
  linear16: {
    format: "pcm",
    sampleEncoding: "pcm_s16le",
    rates: [8000, 16000, 24000, 32000, 48000],
    defaultRate: 24000,
    containers: ["none", "wav"],
  },
  mulaw: {
    format: "pcm",
    sampleEncoding: "pcm_mulaw",
    rates: G711_RATES,
    defaultRate: 8000,
    containers: ["none", "wav"],
  },
  alaw: {
    format: "pcm",
    sampleEncoding: "pcm_alaw",
    rates: G711_RATES,
    defaultRate: 8000,
    containers: ["none", "wav"],
  },
  mp3: { format: "mp3", rates: [22050], defaultRate: 22050, containers: ["none"] },
  opus: { format: "opus", rates: [48000], defaultRate: 48000, containers: ["ogg"] },
  flac: { format: "flac", rates: "range", defaultRate: 48000, containers: ["none"] },
  aac: { format: "aac", rates: [22050], defaultRate: 22050, containers: ["none"] },
};

/** The voice a Deepgram `model` names (see the file comment). */
export function voiceOfModel(model: string | null): string {
  const name = model?.trim() ?? "";
  if (name === "") return DEFAULT_VOICE;
  if (/^aura-(?:2-)?[a-z]+-en$/i.test(name)) return "Yara_en";
  return name;
}

/** What a Deepgram TTS query asks for. */
export interface SpeakQuery {
  /** The context's settings (validated as every speech request is). */
  readonly settings: SpeechContextRequest;
  /** The `model` as sent, for Metadata and headers. */
  readonly model: string;
}

const bad = (detail: string) => new AppError("bad_request", detail);

/** Reads and checks a Deepgram TTS query; 400 AppErrors naming the parameter. */
export function parseSpeakQuery(params: URLSearchParams, config: SawtConfig): SpeakQuery {
  if (params.has("callback"))
    throw bad("callback is not offered: Sawt makes no outbound requests; read the audio from the response");
  const encodingName = (params.get("encoding") ?? "linear16").trim().toLowerCase();
  const spec = ENCODINGS[encodingName];
  if (!spec) throw bad(`Unsupported encoding ${encodingName}: use ${Object.keys(ENCODINGS).join(", ")}`);
  const container = (params.get("container") ?? spec.containers[0]!).trim().toLowerCase();
  if (!spec.containers.includes(container))
    throw bad(`Unsupported container ${container} for ${encodingName}: use ${spec.containers.join(" or ")}`);
  const rateText = params.get("sample_rate");
  const rate = rateText === null || rateText.trim() === "" ? spec.defaultRate : Number(rateText);
  const allowed =
    spec.rates === "range" ? Number.isInteger(rate) && rate >= 8000 && rate <= 48000 : spec.rates.includes(rate);
  if (!allowed)
    throw bad(
      `Unsupported sample_rate ${rateText} for ${encodingName}: use ${spec.rates === "range" ? "8000 to 48000" : spec.rates.join(", ")}`,
    );
  const speedText = params.get("speed");
  const speed = speedText === null || speedText.trim() === "" ? undefined : Number(speedText);
  if (speed !== undefined && !Number.isFinite(speed)) throw bad(`speed must be a number, not ${speedText}`);
  const model = params.get("model") ?? "";
  const format = spec.format === "pcm" && container === "wav" ? "wav" : spec.format;
  const settings = parseSpeechSettings(
    {
      voice: voiceOfModel(model),
      response_format: format,
      sample_rate: rate,
      ...(spec.sampleEncoding ? { encoding: spec.sampleEncoding } : {}),
      ...(speed !== undefined ? { speed } : {}),
    },
    { naming: QUERY_FIELDS },
    config,
  );
  return { settings, model };
}
