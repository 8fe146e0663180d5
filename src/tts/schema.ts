/**
 * Speech-request validation for every door. The request is declared once in src/core/tts.ts
 * ({@link SpeechRequestSchema}); a door maps its wire names onto those fields and calls
 * {@link parseSpeech} with how it names them, so a REST client reads `body.sample_rate`, a gRPC
 * client `sample_rate_hz` and a WebSocket client `sample_rate` for the same broken value.
 *
 * Rules (spec + D3, D6, D7, D8): wrong types are 422 with the field; missing or empty `input` is
 * 400 `Text cannot be empty`; length counts Unicode code points; an unknown `response_format` is
 * 400; blocked content (matched on NFKC text) is 400; `speed` is clamped to [0.5, 2.0]; the
 * request's `dialect` beats the door's header dialect and an unknown value counts as omitted;
 * `sample_rate` (extension) must be an integer 8000–48000; `encoding` (extension, D19) is one of
 * pcm_s16le, pcm_mulaw, pcm_alaw and only pcm and wav take a G.711 one.
 */
import * as v from "valibot";
import { AUDIO_FORMATS, ENCODABLE_FORMATS } from "../audio/formats.ts";
import { isSampleEncoding, SAMPLE_ENCODINGS } from "../audio/g711.ts";
import type { SawtConfig } from "../config/config.ts";
import {
  knownDialect,
  type SpeechContextRequest,
  type SpeechRequest,
  SpeechFieldsSchema,
  SpeechRequestSchema,
} from "../core/tts.ts";
import { BODY_FIELDS, fieldErrors, type FieldNaming } from "../errors/fields.ts";
import { AppError, Detail } from "../errors/taxonomy.ts";
import {
  assertAllowedContent,
  type ContentFilter,
  createContentFilter,
  DEFAULT_BLOCKED_PATTERNS,
} from "./frontend/blocked.ts";
import { codePointLength } from "./frontend/length.ts";
import { writtenForm } from "./frontend/phoneme-span.ts";
import { isSsml, parseSsml, SsmlError } from "./ssml/parse.ts";
import { builtinVoice } from "./voice-resolution.ts";

/** JSON body of POST /v1/tts/audio/speech (the API docs render it): the shared speech fields. */
export const SpeechBodySchema = SpeechFieldsSchema;

/** The 400 detail of an unknown `encoding`, listing the allowed values as the format detail does. */
export const INVALID_ENCODING_DETAIL = `Invalid encoding. Allowed: ${[...SAMPLE_ENCODINGS].sort().join(", ")}`;

/** The settings speech validation reads. */
export interface SpeechLimits {
  readonly tts: Pick<SawtConfig["tts"], "max_input_chars" | "blocked_patterns">;
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

/** How a door hands a request over to {@link parseSpeech}. */
export interface SpeechDoor {
  /** How the door names fields in 422 errors. */
  readonly naming: FieldNaming;
  /** A dialect the door carries beside the request (REST's `X-TTS-Dialect` header); the request's own wins (D3). */
  readonly headerDialect?: string | null;
}

/**
 * Validates speech fields (already mapped to the shared names) into a {@link SpeechRequest}.
 * Throws AppError 422 (types, fields named as the door names them) or 400 (spec detail texts).
 */
export function parseSpeech(fields: unknown, door: SpeechDoor, limits: SpeechLimits): SpeechRequest {
  if (Array.isArray(fields)) {
    throw new AppError("validation", Detail.validationFailed, {
      fields: [{ field: door.naming.root, message: "Expected a JSON object" }],
    });
  }
  const result = v.safeParse(SpeechRequestSchema, fields ?? {});
  if (!result.success)
    throw new AppError("validation", Detail.validationFailed, { fields: fieldErrors(result.issues, door.naming) });
  const request = result.output;
  if (request.input.trim().length === 0) throw new AppError("bad_request", Detail.textEmpty);
  const max = limits.tts.max_input_chars;
  if (request.input.length > max && codePointLength(request.input) > max) throw textTooLong(limits);
  if (!AUDIO_FORMATS.includes(request.responseFormat)) throw new AppError("bad_request", Detail.invalidFormat);
  if (!isSampleEncoding(request.encoding)) throw new AppError("bad_request", INVALID_ENCODING_DETAIL);
  if (request.encoding !== "pcm_s16le" && !ENCODABLE_FORMATS.includes(request.responseFormat)) {
    throw new AppError(
      "bad_request",
      `Invalid encoding for ${request.responseFormat}: ${request.encoding} applies to pcm and wav only`,
    );
  }
  assertAllowedSpeech(request.input, request.voice, contentFilterFor(limits.tts.blocked_patterns));
  return { ...request, dialect: request.dialect ?? knownDialect(door.headerDialect) };
}

/**
 * A speech context's settings (core/tts.ts `SpeechContextRequest`): every field of a speech
 * request but its text, validated by the same rules. A context's text comes later, in pieces.
 */
export function parseSpeechSettings(fields: unknown, door: SpeechDoor, limits: SpeechLimits): SpeechContextRequest {
  const object = typeof fields === "object" && fields !== null && !Array.isArray(fields) ? fields : {};
  const { input: _input, ...settings } = parseSpeech({ ...object, input: "." }, door, limits);
  return settings;
}

/**
 * D7 on what will be spoken: plain text as it is; SSML parsed (400 naming the problem when it is
 * malformed or unsupported) and each text part checked, the markup itself being allowed.
 */
export function assertAllowedSpeech(input: string, voice: string, filter: ContentFilter): void {
  if (!isSsml(input)) {
    assertAllowedContent(input, filter);
    return;
  }
  let parts;
  try {
    parts = parseSsml(input, builtinVoice(voice) === "Yara_en" ? "en" : "ar");
  } catch (error) {
    if (error instanceof SsmlError) throw new AppError("bad_request", error.message);
    throw error;
  }
  for (const part of parts) if (part.kind === "text") assertAllowedContent(writtenForm(part.text), filter);
}

/**
 * The error for a speech body too big to read: the only field a speech request may make large is
 * its text, and the spec's answer to text over the limit is 400 (never 413), however long it is —
 * so a 5 MB SSML document is refused like a 60,000-character one, without reading it all.
 */
export function textTooLong(limits: SpeechLimits): AppError {
  return new AppError(
    "bad_request",
    `Text exceeds maximum length of ${limits.tts.max_input_chars.toLocaleString("en-US")} characters`,
  );
}

/**
 * Whether `error` refuses text for its length: {@link textTooLong}, or a speech stream context's
 * queue over `tts.stream_max_queued_chars` (./stream/context.ts) — what the Deepgram and ElevenLabs
 * doors report as their own "too much text" (BIG-0000, `max_character_limit_exceeded`).
 */
export function isTextLimitError(error: AppError): boolean {
  return /exceeds maximum length|over the limit/.test(error.detail);
}

/** REST's form of {@link parseSpeech}: a JSON body (`body.*` field names) plus the `X-TTS-Dialect` header. */
export function parseSpeechRequest(
  body: unknown,
  headerDialect: string | null | undefined,
  limits: SpeechLimits,
): SpeechRequest {
  return parseSpeech(body, { naming: BODY_FIELDS, headerDialect }, limits);
}
