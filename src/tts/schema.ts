/**
 * The speech request, declared once (valibot) and reused as the type, by every front door through
 * {@link parseSpeechRequest}, and by the API docs. Transport-free: it throws AppErrors, never HTTP.
 *
 * Rules (spec + D3, D6, D7, D8): wrong JSON types are 422 with the field (`body.speed`); missing or
 * empty `input` is 400 `Text cannot be empty`; length counts Unicode code points; an unknown
 * `response_format` is 400; blocked content (matched on NFKC text) is 400; `speed` is clamped to
 * [0.5, 2.0]; `dialect` in the body beats the `X-TTS-Dialect` header and an unknown value counts
 * as omitted; `sample_rate` (extension) must be an integer 8000–48000.
 */
import * as v from "valibot";
import type { SawtConfig } from "../config/config.ts";
import { fieldErrors } from "../errors/fields.ts";
import { AppError, Detail } from "../errors/taxonomy.ts";
import { MAX_TARGET_SAMPLE_RATE, MIN_TARGET_SAMPLE_RATE } from "../audio/formats.ts";
import { assertAllowedContent, createContentFilter, DEFAULT_BLOCKED_PATTERNS, type ContentFilter } from "./frontend/blocked.ts";
import { codePointLength } from "./frontend/length.ts";
import { AUDIO_FORMATS, DIALECTS, VOICES, type AudioFormat, type Dialect, type SpeechRequest } from "./types.ts";

/** Speed bounds (spec: clamped silently). */
export const SPEED_MIN = 0.5;
export const SPEED_MAX = 2.0;
/** The default voice (D1). */
export const DEFAULT_VOICE = VOICES[0];

/** JSON body of POST /v1/tts/audio/speech. Unknown fields (e.g. OpenAI's `model`) are ignored; null counts as omitted. */
export const SpeechBodySchema = v.object(
  {
    input: v.nullish(
      v.pipe(
        v.string("Expected a string"),
        v.description("Text to speak, at most 51,200 characters (Unicode code points). Markup, script URIs and template syntax are refused."),
        v.examples(["مرحبا بكم في خدمة العملاء، كيف يمكنني مساعدتك اليوم؟"]),
        v.metadata({ required: true }),
      ),
    ),
    voice: v.nullish(
      v.pipe(
        v.string("Expected a string"),
        v.description(`Voice: ${VOICES.join(", ")} (default ${DEFAULT_VOICE}) or a cloned voice_id. A removed or unknown voice falls back to ${DEFAULT_VOICE}; X-TTS-Fallback says so.`),
        v.examples(["Yara"]),
      ),
    ),
    response_format: v.nullish(
      v.pipe(
        v.string("Expected a string"),
        v.description("Audio format (default mp3): mp3 audio/mpeg, wav audio/wav, opus audio/ogg, flac audio/flac, aac audio/aac (ADTS), pcm audio/pcm (s16le mono, rate in X-Sample-Rate)."),
        v.metadata({ enum: AUDIO_FORMATS }),
        v.examples(["mp3"]),
      ),
    ),
    speed: v.nullish(
      v.pipe(v.number("Expected a number"), v.description("Speaking rate; values outside 0.5–2.0 are clamped (default 1.0)."), v.examples([1.0])),
    ),
    dialect: v.nullish(
      v.pipe(
        v.string("Expected a string"),
        v.description(`One of ${DIALECTS.join(", ")}. Beats the X-TTS-Dialect header; an unknown value counts as omitted (the voice's own dialect).`),
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
  },
  "Expected a JSON object",
);

/** The JSON body as sent (after type validation). */
export type SpeechBody = v.InferOutput<typeof SpeechBodySchema>;

/** The settings speech validation reads. */
export interface SpeechLimits {
  readonly tts: Pick<SawtConfig["tts"], "max_input_chars" | "blocked_patterns">;
}

/** A valid dialect from a body or header value, else undefined (D3: unknown = omitted). */
export function knownDialect(value: string | null | undefined): Dialect | undefined {
  const wanted = value?.trim().toLowerCase();
  return DIALECTS.find((d) => d === wanted);
}

const filters = new WeakMap<readonly string[], ContentFilter>();

/**
 * The D7 filter for a configuration: the built-in patterns plus `tts.blocked_patterns` (the
 * setting adds to the built-in list, never replaces it). Compiled once per configuration.
 */
export function contentFilterFor(extra: readonly string[]): ContentFilter {
  let filter = filters.get(extra);
  if (!filter) {
    filter = createContentFilter([...DEFAULT_BLOCKED_PATTERNS, ...extra]);
    filters.set(extra, filter);
  }
  return filter;
}

/**
 * Validates a JSON-decoded speech body plus the `X-TTS-Dialect` header into a {@link SpeechRequest}.
 * Throws AppError 422 (types, field `body.<name>`) or 400 (spec detail texts).
 */
export function parseSpeechRequest(body: unknown, headerDialect: string | null | undefined, config: SpeechLimits): SpeechRequest {
  if (Array.isArray(body)) throw new AppError("validation", Detail.validationFailed, { fields: [{ field: "body", message: "Expected a JSON object" }] });
  const result = v.safeParse(SpeechBodySchema, body ?? {});
  if (!result.success) throw new AppError("validation", Detail.validationFailed, { fields: fieldErrors(result.issues, "body") });
  const parsed = result.output;
  const input = parsed.input ?? "";
  if (input.trim().length === 0) throw new AppError("bad_request", Detail.textEmpty);
  const max = config.tts.max_input_chars;
  if (input.length > max && codePointLength(input) > max) {
    throw new AppError("bad_request", `Text exceeds maximum length of ${max.toLocaleString("en-US")} characters`);
  }
  const format = parsed.response_format ?? "mp3";
  if (!(AUDIO_FORMATS as readonly string[]).includes(format)) throw new AppError("bad_request", Detail.invalidFormat);
  assertAllowedContent(input, contentFilterFor(config.tts.blocked_patterns));
  const voice = parsed.voice?.trim();
  return {
    input,
    voice: voice ? voice : DEFAULT_VOICE,
    responseFormat: format as AudioFormat,
    speed: Math.min(SPEED_MAX, Math.max(SPEED_MIN, parsed.speed ?? 1.0)),
    dialect: knownDialect(parsed.dialect) ?? knownDialect(headerDialect),
    sampleRate: parsed.sample_rate ?? undefined,
  };
}
