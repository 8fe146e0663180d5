/**
 * Speech request validation (D3, D6, D7, D8) for {@link TtsService.parseRequest}, until the REST
 * feature's valibot schema (src/tts/schema.ts `parseSpeechRequest`) lands and replaces it: the
 * rules and detail texts here are the same, so the swap changes no behaviour.
 *
 * Order: wrong JSON types → 422 (field `body.<name>`); then missing/empty input → 400; too long
 * (Unicode code points) → 400; unknown format → 400; blocked content → 400. Speed is clamped.
 */
import type { SawtConfig } from "../config/config.ts";
import { AppError, Detail, type FieldError } from "../errors/taxonomy.ts";
import { codePointLength, createContentFilter, DEFAULT_BLOCKED_PATTERNS, type ContentFilter } from "./frontend/index.ts";
import { AUDIO_FORMATS, type AudioFormat, type SpeechRequest } from "./types.ts";
import { DEFAULT_VOICE, knownDialect } from "./voices.ts";

/** Speed bounds (D6: clamped, never an error). */
export const SPEED_RANGE = [0.5, 2.0] as const;
/** Bounds of the `sample_rate` extension (D8). */
export const SAMPLE_RATE_RANGE = [8000, 48000] as const;

/** Clamps a speed to {@link SPEED_RANGE}; a non-finite value counts as 1. */
export function clampSpeed(speed: number): number {
  if (!Number.isFinite(speed)) return 1;
  return Math.min(SPEED_RANGE[1], Math.max(SPEED_RANGE[0], speed));
}

/** A request parser bound to the config (the blocked-content list is compiled once). */
export type RequestParser = (body: unknown, headerDialect?: string | null) => SpeechRequest;

/** Builds the parser for `config.tts` (max length, blocked patterns: built-in list plus extras). */
export function createRequestParser(tts: Pick<SawtConfig["tts"], "max_input_chars" | "blocked_patterns">): RequestParser {
  const blocked: ContentFilter = createContentFilter([...DEFAULT_BLOCKED_PATTERNS, ...tts.blocked_patterns]);
  return (body, headerDialect) => parseSpeechBody(body, headerDialect, tts.max_input_chars, blocked);
}

function parseSpeechBody(body: unknown, headerDialect: string | null | undefined, maxChars: number, blocked: ContentFilter): SpeechRequest {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new AppError("validation", Detail.validationFailed, { fields: [{ field: "body", message: "Expected a JSON object" }] });
  }
  const raw = body as Record<string, unknown>;
  const fields: FieldError[] = [];
  const str = (name: string): string | undefined => {
    const value = raw[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") fields.push({ field: `body.${name}`, message: "Expected a string" });
    return typeof value === "string" ? value : undefined;
  };
  const num = (name: string): number | undefined => {
    const value = raw[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "number" || !Number.isFinite(value)) fields.push({ field: `body.${name}`, message: "Expected a number" });
    return typeof value === "number" && Number.isFinite(value) ? value : undefined;
  };
  const input = str("input");
  const voice = str("voice");
  const format = str("response_format");
  const speed = num("speed");
  const dialect = str("dialect");
  const sampleRate = num("sample_rate");
  if (sampleRate !== undefined && (!Number.isInteger(sampleRate) || sampleRate < SAMPLE_RATE_RANGE[0] || sampleRate > SAMPLE_RATE_RANGE[1])) {
    fields.push({ field: "body.sample_rate", message: `Expected an integer from ${SAMPLE_RATE_RANGE[0]} to ${SAMPLE_RATE_RANGE[1]}` });
  }
  if (fields.length > 0) throw new AppError("validation", Detail.validationFailed, { fields });

  if (input === undefined || input.trim() === "") throw new AppError("bad_request", Detail.textEmpty);
  if (input.length > maxChars && codePointLength(input) > maxChars) {
    throw new AppError("bad_request", `Text exceeds maximum length of ${maxChars.toLocaleString("en-US")} characters`);
  }
  const responseFormat = format ?? "mp3";
  if (!(AUDIO_FORMATS as readonly string[]).includes(responseFormat)) throw new AppError("bad_request", Detail.invalidFormat);
  if (blocked(input)) throw new AppError("bad_request", Detail.invalidContent);
  return {
    input,
    voice: voice?.trim() ? voice.trim() : DEFAULT_VOICE,
    responseFormat: responseFormat as AudioFormat,
    speed: clampSpeed(speed ?? 1),
    dialect: knownDialect(dialect) ?? knownDialect(headerDialect),
    sampleRate,
  };
}
