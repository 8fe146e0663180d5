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
import { AUDIO_FORMATS, DIALECTS, VOICES, type AudioFormat, type Dialect, type SpeechRequest } from "./types.ts";

/** Speed bounds (spec: clamped silently). */
export const SPEED_MIN = 0.5;
export const SPEED_MAX = 2.0;
/** Resampling bounds of the `sample_rate` extension (D8). */
export const SAMPLE_RATE_MIN = 8000;
export const SAMPLE_RATE_MAX = 48000;
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
        v.minValue(SAMPLE_RATE_MIN, `Must be at least ${SAMPLE_RATE_MIN}`),
        v.maxValue(SAMPLE_RATE_MAX, `Must be at most ${SAMPLE_RATE_MAX}`),
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

/** Number of Unicode code points in `text` (a surrogate pair counts once), counting no further than `stopAfter`. */
export function codePointLength(text: string, stopAfter = Infinity): number {
  let count = 0;
  for (let i = 0; i < text.length && count <= stopAfter; i++, count++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return count;
}

/** A valid dialect from a body or header value, else undefined (D3: unknown = omitted). */
export function knownDialect(value: string | null | undefined): Dialect | undefined {
  const wanted = value?.trim().toLowerCase();
  return DIALECTS.find((d) => d === wanted);
}

// Until src/tts/frontend/blocked.ts (createContentFilter) lands on main, D7 is checked by this
// small list; swap `blockedBy` for createContentFilter([...DEFAULT_BLOCKED_PATTERNS, ...extra]).
const BUILTIN_BLOCKED: readonly string[] = [
  String.raw`<\s*/?\s*[a-z][a-z0-9-]*\s*/?\s*>`, // bare tags: <b>, </div>, <br/>
  String.raw`<\s*[a-z][a-z0-9-]*\s+[^<>]*=[^<>]*>`, // tags with attributes: <a href=x>
  String.raw`<\s*(?:script|iframe|object|embed|svg|style|img)\b`, // dangerous tags even unclosed
  String.raw`<\s*(?:!--|![a-z\[]|\?[a-z])`, // comments, doctype, CDATA, processing instructions
  String.raw`\b(?:java|vb)\s*script\s*:`,
  String.raw`\bdata\s*:\s*[a-z]+/[a-z0-9.+-]+`,
  String.raw`\{\{[\s\S]*?\}\}`,
  String.raw`\$\{[^}]*\}`,
  String.raw`<%[\s\S]*?%>`,
  String.raw`[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]`,
];
const compiled = new WeakMap<readonly string[], RegExp[]>();

/** True when `text`, NFKC-normalised, matches a built-in or configured blocked pattern (D7). */
export function blockedBy(text: string, extra: readonly string[]): boolean {
  let patterns = compiled.get(extra);
  if (!patterns) {
    patterns = [...BUILTIN_BLOCKED, ...extra].map((source) => new RegExp(source, "iu"));
    compiled.set(extra, patterns);
  }
  const folded = text.normalize("NFKC");
  return patterns.some((re) => re.test(folded));
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
  if (input.length > max && codePointLength(input, max) > max) {
    throw new AppError("bad_request", `Text exceeds maximum length of ${max.toLocaleString("en-US")} characters`);
  }
  const format = parsed.response_format ?? "mp3";
  if (!(AUDIO_FORMATS as readonly string[]).includes(format)) throw new AppError("bad_request", Detail.invalidFormat);
  if (blockedBy(input, config.tts.blocked_patterns)) throw new AppError("bad_request", Detail.invalidContent);
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
