/**
 * The typed speech request every TTS door produces, declared once as a valibot schema whose output
 * type is what the service takes, with the voices, dialects and speed bounds it names. No door
 * re-implements validation; each only parses its own wire format into {@link SpeechFields} (see
 * src/tts/schema.ts). Re-exported by ./tts.ts, the TTS contract.
 */
import * as v from "valibot";
import { AUDIO_FORMATS, type AudioFormat, MAX_TARGET_SAMPLE_RATE, MIN_TARGET_SAMPLE_RATE } from "../audio/formats.ts";
import { SAMPLE_ENCODINGS, type SampleEncoding } from "../audio/g711.ts";

/** The spec's voices (Nouf and Atheer were removed; D1). The first is the default. */
export const VOICES = ["Yara", "Sherine", "Myriam", "Yara_en"] as const;
/** A built-in voice name. */
export type BuiltinVoice = (typeof VOICES)[number];
/** The default voice (D1). */
export const DEFAULT_VOICE: BuiltinVoice = VOICES[0];

/** The spec's dialects. */
export const DIALECTS = ["ar-najdi", "ar-hijazi", "ar-qassimi", "ar-egyptian", "ar-levantine"] as const;
/** One dialect. */
export type Dialect = (typeof DIALECTS)[number];

/** Speed bounds (spec: clamped silently, D6). */
export const SPEED_MIN = 0.5;
/** Upper speed bound. */
export const SPEED_MAX = 2.0;

/** A valid dialect from a body, message or header value, else undefined (D3: unknown = omitted). */
export function knownDialect(value: string | null | undefined): Dialect | undefined {
  const wanted = value?.trim().toLowerCase();
  return DIALECTS.find((d) => d === wanted);
}

/** Clamps a speed into [{@link SPEED_MIN}, {@link SPEED_MAX}]; a non-finite value means 1. */
export function clampSpeed(speed: number): number {
  return Number.isFinite(speed) ? Math.min(SPEED_MAX, Math.max(SPEED_MIN, speed)) : 1;
}

/**
 * The fields of a speech request, as every door hands them over after mapping its own wire names
 * (gRPC `text` → `input`, `sample_rate_hz` → `sample_rate`). REST's JSON body is exactly this
 * object; unknown fields (e.g. OpenAI's `model`) are ignored and null counts as omitted.
 */
export const SpeechFieldsSchema = v.object(
  {
    input: v.nullish(
      v.pipe(
        v.string("Expected a string"),
        v.description(
          "Text to speak, at most 51,200 characters (Unicode code points), or SSML starting with `<speak` (the subset in the API description). " +
            "Other markup, script URIs and template syntax are refused.",
        ),
        v.examples(["مرحبا بكم في خدمة العملاء، كيف يمكنني مساعدتك اليوم؟"]),
        v.metadata({ required: true }),
      ),
    ),
    voice: v.nullish(
      v.pipe(
        v.string("Expected a string"),
        v.description(
          `Voice: ${VOICES.join(", ")} (default ${DEFAULT_VOICE}) or a cloned voice_id. A removed or unknown voice falls back to ${DEFAULT_VOICE}; X-TTS-Fallback says so.`,
        ),
        v.examples(["Yara"]),
      ),
    ),
    response_format: v.nullish(
      v.pipe(
        v.string("Expected a string"),
        v.description(
          "Audio format (default mp3): mp3 audio/mpeg, wav audio/wav, opus audio/ogg, flac audio/flac, aac audio/aac (ADTS), pcm audio/pcm (s16le mono, rate in X-Sample-Rate).",
        ),
        v.metadata({ enum: AUDIO_FORMATS }),
        v.examples(["mp3"]),
      ),
    ),
    speed: v.nullish(
      v.pipe(
        v.number("Expected a number"),
        v.description("Speaking rate; values outside 0.5–2.0 are clamped (default 1.0)."),
        v.examples([1.0]),
      ),
    ),
    dialect: v.nullish(
      v.pipe(
        v.string("Expected a string"),
        v.description(
          `One of ${DIALECTS.join(", ")}. Beats the X-TTS-Dialect header; an unknown value counts as omitted (the voice's own dialect).`,
        ),
        v.metadata({ enum: DIALECTS }),
        v.examples(["ar-najdi"]),
      ),
    ),
    sample_rate: v.nullish(
      v.pipe(
        v.number("Expected a number"),
        v.integer("Expected an integer"),
        v.minValue(MIN_TARGET_SAMPLE_RATE, `Must be at least ${MIN_TARGET_SAMPLE_RATE}`),
        v.maxValue(MAX_TARGET_SAMPLE_RATE, `Must be at most ${MAX_TARGET_SAMPLE_RATE}`),
        v.description("Extension: resample the output (Hz), e.g. 8000 for telephony. Default: the voice's rate."),
        v.examples([8000]),
      ),
    ),
    encoding: v.nullish(
      v.pipe(
        v.string("Expected a string"),
        v.description(
          "Extension for pcm and wav (D19): pcm_s16le (default), pcm_mulaw or pcm_alaw (G.711, 8 bits per sample; " +
            "with sample_rate 8000 for telephony). pcm answers audio/pcmu or audio/pcma; wav carries the G.711 format tag.",
        ),
        v.metadata({ enum: SAMPLE_ENCODINGS }),
        v.examples(["pcm_mulaw"]),
      ),
    ),
  },
  "Expected a JSON object",
);

/** The fields as sent (after type validation). */
export type SpeechFields = v.InferOutput<typeof SpeechFieldsSchema>;

/**
 * The speech request the TTS service takes: the fields with D3/D6/D8 defaults applied (voice
 * trimmed or the default, speed clamped, a known dialect or none, mp3 by default). Its output type
 * is {@link SpeechRequest}. The config-dependent 400 rules (empty, length, format list, blocked
 * content) run after it, in src/tts/schema.ts `parseSpeech`, the only place requests are made.
 */
export const SpeechRequestSchema = v.pipe(
  SpeechFieldsSchema,
  v.transform((fields) => ({
    input: fields.input ?? "",
    voice: fields.voice?.trim() || DEFAULT_VOICE,
    // Checked against AUDIO_FORMATS by parseSpeech before any service sees the request.
    responseFormat: (fields.response_format ?? "mp3") as AudioFormat,
    speed: clampSpeed(fields.speed ?? 1.0),
    dialect: knownDialect(fields.dialect),
    sampleRate: fields.sample_rate ?? undefined,
    // Checked against SAMPLE_ENCODINGS and the format by parseSpeech.
    encoding: (fields.encoding?.trim() || "pcm_s16le") as SampleEncoding,
  })),
);

/** A validated speech request (D3, D6, D7, D8 applied). */
export type SpeechRequest = Readonly<v.InferOutput<typeof SpeechRequestSchema>>;
