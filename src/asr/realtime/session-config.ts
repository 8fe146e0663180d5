/**
 * The transcription session of OpenAI's Realtime API as Sawt holds it, and its two wire shapes:
 * the GA `session.update` (`session.type: "transcription"`, `session.audio.input.format`
 * `{type: "audio/pcm", rate}` / `audio/pcmu` / `audio/pcma`, `…input.turn_detection`,
 * `…input.transcription`) and the older beta `transcription_session.update`
 * (`input_audio_format` pcm16 / g711_ulaw / g711_alaw, `turn_detection`,
 * `input_audio_transcription`). An update merges into the current settings, field by field.
 *
 * Sawt extension: `audio/pcm` accepts any `rate` from 8000 to 48000 (OpenAI: 24000 only).
 */
import { DEFAULT_TURN_DETECTION } from "../../core/asr.ts";
import * as v from "valibot";
import { G711_RATE, liveFormatProblem, type LiveAudioFormat } from "../../audio/live-input.ts";
import type { TurnDetection } from "../../core/asr.ts";
import { AppError, Detail } from "../../errors/taxonomy.ts";
import { TranscriptionFormSchema } from "../schema.ts";

/** The session's settings. */
export interface RealtimeSettings {
  readonly format: LiveAudioFormat;
  readonly turnDetection: TurnDetection | null;
  readonly transcription: { readonly model: string; readonly language: string; readonly prompt: string };
}

/** A new session's settings: pcm16 at 24 kHz, server VAD, Arabic. */
export const DEFAULT_SETTINGS: RealtimeSettings = {
  format: { encoding: "pcm_s16le", sampleRate: 24000 },
  turnDetection: DEFAULT_TURN_DETECTION,
  transcription: { model: "sawt", language: "ar", prompt: "" },
};

/** A client field that cannot be used: `param` is its dotted path, as OpenAI's error events name it. */
export class ParamError extends AppError {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super("validation", Detail.validationFailed, { fields: [{ field: param, message }] });
  }
}

type Json = Record<string, unknown>;
const isObject = (x: unknown): x is Json => typeof x === "object" && x !== null && !Array.isArray(x);

function objectAt(parent: Json, key: string, path: string): Json | undefined {
  const value = parent[key];
  if (value === undefined) return undefined;
  if (!isObject(value)) throw new ParamError(`${path}.${key}`, "must be an object");
  return value;
}

function numberIn(value: unknown, param: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
    throw new ParamError(param, `must be a number between ${min} and ${max}`);
  }
  return value;
}

/** `turn_detection` of either shape: null (client commits) or server_vad with OpenAI's three settings. */
function turnDetection(value: unknown, current: TurnDetection | null, param: string): TurnDetection | null {
  if (value === null) return null;
  if (!isObject(value)) throw new ParamError(param, "must be an object or null");
  if (value.type !== undefined && value.type !== "server_vad") {
    throw new ParamError(`${param}.type`, "only server_vad is supported (or null for client commits)");
  }
  const base = current ?? DEFAULT_TURN_DETECTION;
  return {
    threshold: value.threshold === undefined ? base.threshold : numberIn(value.threshold, `${param}.threshold`, 0, 1),
    prefixPaddingMs:
      value.prefix_padding_ms === undefined
        ? base.prefixPaddingMs
        : numberIn(value.prefix_padding_ms, `${param}.prefix_padding_ms`, 0, 5000),
    silenceDurationMs:
      value.silence_duration_ms === undefined
        ? base.silenceDurationMs
        : numberIn(value.silence_duration_ms, `${param}.silence_duration_ms`, 50, 10000),
  };
}

function transcription(
  value: Json | undefined,
  current: RealtimeSettings["transcription"],
  param: string,
): RealtimeSettings["transcription"] {
  if (!value) return current;
  const text = (key: string, fallback: string): string => {
    const x = value[key];
    if (x === undefined || x === null) return fallback;
    if (typeof x !== "string") throw new ParamError(`${param}.${key}`, "must be a string");
    return x;
  };
  const language = text("language", current.language).trim();
  if (language !== "") {
    const checked = v.safeParse(TranscriptionFormSchema, { language });
    if (!checked.success) throw new ParamError(`${param}.language`, checked.issues[0].message);
  }
  return { model: text("model", current.model), language: language || "ar", prompt: text("prompt", current.prompt) };
}

function checkedFormat(format: LiveAudioFormat, param: string): LiveAudioFormat {
  const problem = liveFormatProblem(format);
  if (problem) throw new ParamError(param, problem);
  return format;
}

/** GA `session.audio.input.format`. */
function gaFormat(value: unknown, param: string): LiveAudioFormat {
  if (!isObject(value)) throw new ParamError(param, "must be an object");
  switch (value.type) {
    case "audio/pcm":
      return checkedFormat(
        {
          encoding: "pcm_s16le",
          sampleRate: value.rate === undefined ? 24000 : numberIn(value.rate, `${param}.rate`, 8000, 48000),
        },
        param,
      );
    case "audio/pcmu":
      return { encoding: "pcm_mulaw", sampleRate: G711_RATE };
    case "audio/pcma":
      return { encoding: "pcm_alaw", sampleRate: G711_RATE };
    default:
      throw new ParamError(`${param}.type`, "must be audio/pcm, audio/pcmu or audio/pcma");
  }
}

const BETA_FORMATS: Readonly<Record<string, LiveAudioFormat>> = {
  pcm16: { encoding: "pcm_s16le", sampleRate: 24000 },
  g711_ulaw: { encoding: "pcm_mulaw", sampleRate: G711_RATE },
  g711_alaw: { encoding: "pcm_alaw", sampleRate: G711_RATE },
};

/** Applies a GA `session.update`'s `session` to `current`. */
export function applyGaUpdate(session: unknown, current: RealtimeSettings): RealtimeSettings {
  if (!isObject(session)) throw new ParamError("session", "must be an object");
  if (session.type !== undefined && session.type !== "transcription") {
    throw new ParamError("session.type", "only transcription sessions are served here (use ?intent=transcription)");
  }
  const input = objectAt(objectAt(session, "audio", "session") ?? {}, "input", "session.audio") ?? {};
  return {
    format: input.format === undefined ? current.format : gaFormat(input.format, "session.audio.input.format"),
    turnDetection:
      "turn_detection" in input
        ? turnDetection(input.turn_detection, current.turnDetection, "session.audio.input.turn_detection")
        : current.turnDetection,
    transcription: transcription(
      objectAt(input, "transcription", "session.audio.input"),
      current.transcription,
      "session.audio.input.transcription",
    ),
  };
}

/** Applies a beta `transcription_session.update`'s `session` to `current`. */
export function applyBetaUpdate(session: unknown, current: RealtimeSettings): RealtimeSettings {
  if (!isObject(session)) throw new ParamError("session", "must be an object");
  let format = current.format;
  if (session.input_audio_format !== undefined) {
    const named = typeof session.input_audio_format === "string" ? BETA_FORMATS[session.input_audio_format] : undefined;
    if (!named) throw new ParamError("session.input_audio_format", "must be pcm16, g711_ulaw or g711_alaw");
    format = named;
  }
  return {
    format,
    turnDetection:
      "turn_detection" in session
        ? turnDetection(session.turn_detection, current.turnDetection, "session.turn_detection")
        : current.turnDetection,
    transcription: transcription(
      objectAt(session, "input_audio_transcription", "session"),
      current.transcription,
      "session.input_audio_transcription",
    ),
  };
}

function turnDetectionJson(detection: TurnDetection | null) {
  if (!detection) return null;
  return {
    type: "server_vad",
    threshold: detection.threshold,
    prefix_padding_ms: detection.prefixPaddingMs,
    silence_duration_ms: detection.silenceDurationMs,
  };
}

function gaFormatJson(format: LiveAudioFormat) {
  if (format.encoding === "pcm_mulaw") return { type: "audio/pcmu" };
  if (format.encoding === "pcm_alaw") return { type: "audio/pcma" };
  return { type: "audio/pcm", rate: format.sampleRate };
}

function betaFormatName(format: LiveAudioFormat): string {
  if (format.encoding === "pcm_mulaw") return "g711_ulaw";
  if (format.encoding === "pcm_alaw") return "g711_alaw";
  return "pcm16";
}

/** The session object of `session.created` / `session.updated` (GA). */
export function gaSessionJson(id: string, settings: RealtimeSettings) {
  return {
    type: "transcription",
    object: "realtime.transcription_session",
    id,
    audio: {
      input: {
        format: gaFormatJson(settings.format),
        transcription: { ...settings.transcription },
        turn_detection: turnDetectionJson(settings.turnDetection),
        noise_reduction: null,
      },
    },
    include: [],
  };
}

/** The session object of `transcription_session.created` / `.updated` (beta). */
export function betaSessionJson(id: string, settings: RealtimeSettings) {
  return {
    id,
    object: "realtime.transcription_session",
    input_audio_format: betaFormatName(settings.format),
    ...(settings.format.encoding === "pcm_s16le" && settings.format.sampleRate !== 24000
      ? { sample_rate: settings.format.sampleRate }
      : {}),
    input_audio_transcription: { ...settings.transcription },
    turn_detection: turnDetectionJson(settings.turnDetection),
    input_audio_noise_reduction: null,
    include: [],
  };
}
