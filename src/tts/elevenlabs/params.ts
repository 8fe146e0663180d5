/**
 * ElevenLabs' TTS parameters → Sawt's speech settings, as elevenlabs.io documents them:
 *
 * - `output_format`: `pcm_8000`, `pcm_16000`, `pcm_22050`, `pcm_24000`, `pcm_44100`, `pcm_48000`
 *   (s16le), `ulaw_8000`, `alaw_8000` (G.711), `mp3_<rate>_<kbps>` (22050 or 44100 Hz; Sawt's
 *   encoder picks its own bit rate), `opus_48000_<kbps>` (Ogg Opus). Anything else is refused.
 * - `{voice_id}` names a Sawt voice (`Yara`, `Sherine`, `Myriam`, `Yara_en`, a cloned voice id); an
 *   ElevenLabs voice id Sawt does not have falls back as an unknown voice does (D1: Yara, said so).
 * - `voice_settings.speed` is Sawt's speed (clamped 0.5–2); `stability`, `similarity_boost`,
 *   `style`, `use_speaker_boost`, `model_id`, `language_code`, `seed`, `enable_logging`,
 *   `optimize_streaming_latency`, `sync_alignment`, `auto_mode`, `generation_config` and
 *   `try_trigger_generation` are accepted and do not change Sawt's speech (it speaks each sentence
 *   as soon as it is complete or flushed, and always sends alignments).
 * - Refused, as they ask for what Sawt cannot do: `apply_text_normalization=off` (Sawt always reads
 *   numbers out), `pronunciation_dictionary_locators` (use the key's lexicon, PUT /v1/tts/lexicon).
 */
import type { SawtConfig } from "../../config/config.ts";
import type { SpeechContextRequest } from "../../core/tts.ts";
import type { FieldNaming } from "../../errors/fields.ts";
import { AppError } from "../../errors/taxonomy.ts";
import { parseSpeechSettings } from "../schema.ts";

/** How the door names fields in 422 details. */
export const EL_FIELDS: FieldNaming = { root: "body", rename: { input: "text", voice: "voice_id" } };

const PCM_RATES = [8000, 16000, 22050, 24000, 44100, 48000];

/** The speech fields an `output_format` stands for. */
function formatFields(outputFormat: string): Record<string, unknown> {
  const [kind, rateText] = outputFormat.split("_");
  const rate = Number(rateText);
  if (kind === "pcm" && PCM_RATES.includes(rate)) return { response_format: "pcm", sample_rate: rate };
  if (kind === "ulaw" && rate === 8000) return { response_format: "pcm", sample_rate: 8000, encoding: "pcm_mulaw" };
  if (kind === "alaw" && rate === 8000) return { response_format: "pcm", sample_rate: 8000, encoding: "pcm_alaw" };
  if (kind === "mp3" && (rate === 22050 || rate === 44100)) return { response_format: "mp3", sample_rate: rate };
  if (kind === "opus" && rate === 48000) return { response_format: "opus", sample_rate: 48000 };
  throw new AppError(
    "bad_request",
    `Unsupported output_format ${outputFormat.slice(0, 40)}: use pcm_8000, pcm_16000, pcm_22050, pcm_24000, pcm_44100, pcm_48000, ulaw_8000, alaw_8000, mp3_22050_32, mp3_44100_<kbps> or opus_48000_<kbps>`,
  );
}

/** Refuses the parameters that ask for what Sawt cannot do (see the file comment). */
export function refuseUnsupported(fields: {
  apply_text_normalization?: unknown;
  pronunciation_dictionary_locators?: unknown;
}): void {
  if (fields.apply_text_normalization === "off")
    throw new AppError(
      "bad_request",
      "apply_text_normalization=off is not offered: Sawt always reads numbers and dates out",
    );
  const locators = fields.pronunciation_dictionary_locators;
  if (Array.isArray(locators) && locators.length > 0)
    throw new AppError(
      "bad_request",
      "pronunciation_dictionary_locators are not offered: put the pronunciations in the key's lexicon (PUT /v1/tts/lexicon)",
    );
}

/** Sawt's speed from `voice_settings` (its `speed`), when one is given. */
function speedOf(voiceSettings: unknown): number | undefined {
  if (typeof voiceSettings !== "object" || voiceSettings === null) return undefined;
  const speed = (voiceSettings as { speed?: unknown }).speed;
  if (speed === undefined || speed === null) return undefined;
  if (typeof speed !== "number" || !Number.isFinite(speed))
    throw new AppError("bad_request", "voice_settings.speed must be a number");
  return speed;
}

/**
 * A context's settings: the voice from the path, the format from `output_format` (default
 * `mp3_44100_128`, ElevenLabs' own), the speed from `voice_settings`.
 */
export function elevenLabsSettings(
  voiceId: string,
  outputFormat: string | null,
  voiceSettings: unknown,
  config: SawtConfig,
): SpeechContextRequest {
  const speed = speedOf(voiceSettings);
  return parseSpeechSettings(
    {
      voice: decodeURIComponent(voiceId),
      ...formatFields(outputFormat ?? "mp3_44100_128"),
      ...(speed !== undefined ? { speed } : {}),
    },
    { naming: EL_FIELDS },
    config,
  );
}
