/**
 * The transcription session of OpenAI's Realtime API as Sawt holds it, and its two wire shapes:
 * the GA `session.update` (`session.type: "transcription"`, `session.audio.input.format`
 * `{type: "audio/pcm", rate}` / `audio/pcmu` / `audio/pcma`, `…input.turn_detection`,
 * `…input.transcription`) and the older beta `transcription_session.update`
 * (`input_audio_format` pcm16 / g711_ulaw / g711_alaw, `turn_detection`,
 * `input_audio_transcription`). An update merges into the current settings, field by field.
 *
 * Sawt extensions: `audio/pcm` accepts any `rate` from 8000 to 48000 (OpenAI: 24000 only);
 * `session.channels` (1 to {@link MAX_CHANNELS}; GA also `session.audio.input.channels` or inside its `format`) says
 * the appended audio is interleaved frames of that many channels, each transcribed apart, and
 * `session.speakers` labels them (issue #27); `session.itn` (default true) and `session.redact`
 * ("pci,pii" or a list) ask for written forms and redaction of deltas and completed events.
 * The transcription settings are ./transcription.ts; fields Sawt has no use for are ignored, never
 * refused (clients such as LiveKit's plugin end the session on any `error` event).
 */
import { DEFAULT_TURN_DETECTION, MAX_CHANNELS } from "../../core/asr.ts";
import * as v from "valibot";
import { G711_RATE, liveFormatProblem, type LiveAudioFormat } from "../../audio/live-input.ts";
import type { TurnDetection } from "../../core/asr.ts";
import { toAppError } from "../../errors/taxonomy.ts";
import { parseRedactClasses } from "../../text/redact/classes.ts";
import { SpeakersSchema } from "../../transcripts/labels.ts";
import { isJsonObject, jsonObject, numberIn, OBJECT, ParamError } from "./fields.ts";
import { mergedTranscription, type TranscriptionSettings, TranscriptionSchema } from "./transcription.ts";

export { ParamError } from "./fields.ts";

/** The session's settings. */
export interface RealtimeSettings {
  readonly format: LiveAudioFormat;
  readonly turnDetection: TurnDetection | null;
  readonly transcription: TranscriptionSettings;
  /** Interleaved channels of the appended audio (Sawt extension); 1 is OpenAI's mono. */
  readonly channels: number;
  /** Speaker labels by channel (Sawt extension); null: `asr.speakers`, then `ch<n>`. */
  readonly speakers: readonly string[] | null;
  /** Written forms (Sawt extension); null: on. */
  readonly itn: boolean | null;
  /** Redaction classes or types (Sawt extension), checked; null: the server's asr.redact only. */
  readonly redact: readonly string[] | null;
}

/** A new session's settings: pcm16 at 24 kHz, server VAD, Arabic. */
export const DEFAULT_SETTINGS: RealtimeSettings = {
  format: { encoding: "pcm_s16le", sampleRate: 24000 },
  turnDetection: DEFAULT_TURN_DETECTION,
  transcription: { model: "sawt", language: "ar", prompt: "" },
  channels: 1,
  speakers: null,
  itn: null,
  redact: null,
};

/** `channels`: a whole number from 1 to MAX_CHANNELS. */
const ChannelsSchema = v.optional(
  v.pipe(
    v.number(`must be a whole number from 1 to ${MAX_CHANNELS}`),
    v.integer(`must be a whole number from 1 to ${MAX_CHANNELS}`),
    v.minValue(1, `must be a whole number from 1 to ${MAX_CHANNELS}`),
    v.maxValue(MAX_CHANNELS, `must be a whole number from 1 to ${MAX_CHANNELS}`),
  ),
);

/** `speakers`: labels by channel, or null for the server's. */
const SessionSpeakersSchema = v.optional(v.nullable(SpeakersSchema));

/** `itn` and `redact` (Sawt extensions), as both session shapes take them. */
const FORMATTING_FIELDS = {
  itn: v.optional(v.nullable(v.boolean("must be true or false"))),
  redact: v.optional(v.nullable(v.union([v.string(), v.array(v.string())], "must be a string or a list of strings"))),
};

/** `redact` checked (unknown classes are refused here, naming the field) and kept as a list. */
function redactUpdate(value: string | string[] | null | undefined, current: readonly string[] | null) {
  if (value === undefined) return current;
  if (value === null) return null;
  try {
    return [...parseRedactClasses(value, "session.redact")];
  } catch (error) {
    const appError = toAppError(error);
    throw new ParamError(
      "session.redact",
      appError.kind === "validation" ? appError.fields[0]!.message : appError.detail,
    );
  }
}

/**
 * `turn_detection` of either shape: null (client commits), or server_vad with OpenAI's three
 * settings. `semantic_vad` is served as server_vad (its `eagerness` ignored): a turn detector
 * changes when an utterance ends, not what it says.
 */
const TurnDetectionSchema = v.optional(
  v.nullable(
    jsonObject(
      {
        type: v.optional(
          v.picklist(["server_vad", "semantic_vad"], "must be server_vad or semantic_vad (or null for client commits)"),
        ),
        threshold: numberIn(0, 1),
        prefix_padding_ms: numberIn(0, 5000),
        silence_duration_ms: numberIn(50, 10000),
      },
      "must be an object or null",
    ),
  ),
);

/** GA `session.audio.input.format`: `{type: "audio/pcm", rate}`, `audio/pcmu` or `audio/pcma`. */
const GaFormatSchema = v.pipe(
  v.custom<Record<string, unknown>>(isJsonObject, OBJECT),
  v.variant(
    "type",
    [
      v.object({ type: v.literal("audio/pcm"), rate: numberIn(8000, 48000), channels: ChannelsSchema }),
      v.object({ type: v.literal("audio/pcmu"), channels: ChannelsSchema }),
      v.object({ type: v.literal("audio/pcma"), channels: ChannelsSchema }),
    ],
    "must be audio/pcm, audio/pcmu or audio/pcma",
  ),
  v.transform((format): LiveAudioFormat & { channels?: number } => {
    const channels = format.channels !== undefined ? { channels: format.channels } : {};
    if (format.type === "audio/pcmu") return { encoding: "pcm_mulaw", sampleRate: G711_RATE, ...channels };
    if (format.type === "audio/pcma") return { encoding: "pcm_alaw", sampleRate: G711_RATE, ...channels };
    return { encoding: "pcm_s16le", sampleRate: format.rate ?? 24000, ...channels };
  }),
  v.check(
    (format) => liveFormatProblem(format) === null,
    (issue) => liveFormatProblem(issue.input) ?? "",
  ),
);

/** A GA `session.update`'s `session`. */
const GaSessionSchema = jsonObject(
  {
    type: v.optional(
      v.literal("transcription", "only transcription sessions are served here (use ?intent=transcription)"),
    ),
    channels: ChannelsSchema,
    speakers: SessionSpeakersSchema,
    ...FORMATTING_FIELDS,
    audio: v.optional(
      jsonObject(
        {
          input: v.optional(
            jsonObject(
              {
                format: v.optional(GaFormatSchema),
                channels: ChannelsSchema,
                turn_detection: TurnDetectionSchema,
                transcription: TranscriptionSchema,
              },
              OBJECT,
            ),
          ),
        },
        OBJECT,
      ),
    ),
  },
  OBJECT,
);

const BETA_FORMATS = {
  pcm16: { encoding: "pcm_s16le", sampleRate: 24000 },
  g711_ulaw: { encoding: "pcm_mulaw", sampleRate: G711_RATE },
  g711_alaw: { encoding: "pcm_alaw", sampleRate: G711_RATE },
} as const satisfies Record<string, LiveAudioFormat>;
const BETA_FORMAT_NAMES = Object.keys(BETA_FORMATS) as [keyof typeof BETA_FORMATS];

/** A beta `transcription_session.update`'s `session`. */
const BetaSessionSchema = jsonObject(
  {
    input_audio_format: v.optional(v.picklist(BETA_FORMAT_NAMES, "must be pcm16, g711_ulaw or g711_alaw")),
    turn_detection: TurnDetectionSchema,
    input_audio_transcription: TranscriptionSchema,
    channels: ChannelsSchema,
    speakers: SessionSpeakersSchema,
    ...FORMATTING_FIELDS,
  },
  OBJECT,
);

/** `session` checked by `schema`; the first problem becomes a {@link ParamError} naming its dotted path. */
function parsed<S extends v.GenericSchema>(schema: S, session: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, session);
  if (result.success) return result.output;
  const issue = result.issues[0];
  throw new ParamError(["session", ...(issue.path ?? []).map((item) => String(item.key))].join("."), issue.message);
}

/** A turn-detection update applied to `current`: fields left out keep their value (or OpenAI's default). */
function mergedTurnDetection(
  update: v.InferOutput<typeof TurnDetectionSchema>,
  current: TurnDetection | null,
): TurnDetection | null {
  if (update === undefined) return current;
  if (update === null) return null;
  const base = current ?? DEFAULT_TURN_DETECTION;
  return {
    threshold: update.threshold ?? base.threshold,
    prefixPaddingMs: update.prefix_padding_ms ?? base.prefixPaddingMs,
    silenceDurationMs: update.silence_duration_ms ?? base.silenceDurationMs,
  };
}

/** Applies a GA `session.update`'s `session` to `current`. */
export function applyGaUpdate(session: unknown, current: RealtimeSettings): RealtimeSettings {
  const update = parsed(GaSessionSchema, session);
  const input = update.audio?.input ?? {};
  const { channels, ...format }: LiveAudioFormat & { channels?: number } = input.format ?? current.format;
  return {
    format,
    channels: channels ?? input.channels ?? update.channels ?? current.channels,
    speakers: update.speakers === undefined ? current.speakers : update.speakers,
    itn: update.itn === undefined ? current.itn : update.itn,
    redact: redactUpdate(update.redact, current.redact),
    turnDetection: mergedTurnDetection(input.turn_detection, current.turnDetection),
    transcription: mergedTranscription(input.transcription, current.transcription, "session.audio.input.transcription"),
  };
}

/** Applies a beta `transcription_session.update`'s `session` to `current`. */
export function applyBetaUpdate(session: unknown, current: RealtimeSettings): RealtimeSettings {
  const update = parsed(BetaSessionSchema, session);
  return {
    format: update.input_audio_format ? BETA_FORMATS[update.input_audio_format] : current.format,
    channels: update.channels ?? current.channels,
    speakers: update.speakers === undefined ? current.speakers : update.speakers,
    itn: update.itn === undefined ? current.itn : update.itn,
    redact: redactUpdate(update.redact, current.redact),
    turnDetection: mergedTurnDetection(update.turn_detection, current.turnDetection),
    transcription: mergedTranscription(
      update.input_audio_transcription,
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
    ...channelsJson(settings),
  };
}

/** The Sawt extensions, echoed only when set (an OpenAI client's session object is unchanged). */
function channelsJson(settings: RealtimeSettings) {
  return {
    ...(settings.channels !== 1 ? { channels: settings.channels } : {}),
    ...(settings.speakers !== null ? { speakers: [...settings.speakers] } : {}),
    ...(settings.itn !== null ? { itn: settings.itn } : {}),
    ...(settings.redact !== null ? { redact: [...settings.redact] } : {}),
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
    ...channelsJson(settings),
  };
}
