/**
 * sawt.asr.v1.SpeechRecognition on the ASR port: a thin adapter over the same {@link AsrService}
 * REST calls. Container bytes go through a private temporary file and `transcribeFile` (the
 * hardened decoder), raw PCM or G.711 is converted to 16 kHz float and given to `transcribeSamples`;
 * StreamingRecognize is a live door: its call runs on the live core (../live/) with the file's
 * segmentation rule, and its events become StreamingRecognizeResponses. The channel fields
 * (`channels`, `speakers`; results' `channel` and `speaker`) are ./channels.ts.
 */
import type * as grpc from "@grpc/grpc-js";
import { randomBytes } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import type { AppContext } from "../../core/context.ts";
import { TranscriptionFormSchema } from "../schema.ts";
import { parseBoost, parseHotwords } from "../boost/hotwords.ts";
import type { AsrService, LiveEvent, TimedRedaction, Transcript, TranscriptionOptions } from "../types.ts";
import { formattingRequest } from "../format/request.ts";
import { allowedExtension, uploadDir, uploadTooLarge, UPLOAD_PREFIX } from "../../audio/upload.ts";
import { readyService } from "../../edge/readiness.ts";
import { fieldErrors } from "../../errors/fields.ts";
import { AppError, Detail } from "../../errors/taxonomy.ts";
import { streamingMethod, unaryMethod, writeMessage } from "../../grpc/call.ts";
import { G711_RATE } from "../../audio/live-input.ts";
import { rawFormat, rawToAsrRate } from "../../grpc/pcm.ts";
import { grpcService } from "../../grpc/services.ts";
import type { GrpcRegistrar } from "../../grpc/server.ts";
import { openLiveSession } from "../live/session.ts";
import { channelOptions, checkChannels, transcribeInterleaved, type ChannelConfig } from "./channels.ts";

/** Largest `audio_content` of one StreamingRecognize message. */
export const MAX_STREAM_CHUNK_BYTES = 131072;

/** RecognitionConfig as proto-loader decodes it. */
export interface RecognitionConfigMessage extends ChannelConfig {
  encoding: "ENCODING_UNSPECIFIED" | "LINEAR_PCM" | "MULAW" | "ALAW";
  sample_rate_hz: number;
  container: string;
  language: string;
  model?: string;
  prompt?: string;
  temperature?: number;
  hotwords?: string[];
  boost?: number;
  /** Absent unless sent (proto3 `optional`). */
  itn?: boolean;
  redact?: string;
}

interface RecognizeRequestMessage {
  config: RecognitionConfigMessage | null;
  audio: Buffer;
}

interface StreamingRequestMessage {
  streaming_config?: { config: RecognitionConfigMessage | null; interim_results: boolean } | null;
  audio_content?: Buffer | null;
  streaming_request?: "streaming_config" | "audio_content";
}

const EMPTY_CONFIG: RecognitionConfigMessage = {
  encoding: "ENCODING_UNSPECIFIED",
  sample_rate_hz: 0,
  container: "",
  language: "",
};

function invalid(field: string, message: string): AppError {
  return new AppError("validation", Detail.validationFailed, { fields: [{ field, message }] });
}

/** Checks the field REST has too (language, with REST's schema) and a raw encoding's rate. */
function checkConfig(config: RecognitionConfigMessage, location: string): void {
  if (config.language.trim() !== "") {
    const checked = v.safeParse(TranscriptionFormSchema, { language: config.language.trim() });
    if (!checked.success)
      throw new AppError("validation", Detail.validationFailed, {
        fields: fieldErrors(checked.issues, { prefix: location, root: location }),
      });
  }
  const prompt = config.prompt ?? "";
  const temperature = config.temperature ?? 0;
  const options = v.safeParse(TranscriptionFormSchema, { ...(prompt !== "" ? { prompt } : {}), temperature });
  if (!options.success) {
    const fields = fieldErrors(options.issues, { prefix: location, root: location });
    throw new AppError("validation", Detail.validationFailed, { fields });
  }
  if (
    config.encoding === "LINEAR_PCM" &&
    (!Number.isInteger(config.sample_rate_hz) || config.sample_rate_hz < 8000 || config.sample_rate_hz > 48000)
  ) {
    throw invalid(`${location}.sample_rate_hz`, "LINEAR_PCM needs a sample rate between 8000 and 48000");
  }
  const format = rawFormat(config.encoding, config.sample_rate_hz);
  if (format && format.encoding !== "pcm_s16le" && format.sampleRate !== G711_RATE) {
    throw invalid(`${location}.sample_rate_hz`, `${config.encoding} audio is 8000 Hz (send 8000 or 0)`);
  }
  checkChannels(config, location, format !== undefined);
}

/** The config's hotwords (the engine adds the key's phrase list); 422 naming the proto field. */
function configHotwords(config: RecognitionConfigMessage, location: string) {
  const boost = parseBoost(config.boost || undefined, `${location}.boost`);
  return parseHotwords(config.hotwords ?? [], `${location}.hotwords`, boost);
}

/** Written forms and redaction a config asks for (REST `itn`, `redact`); an unknown class is INVALID_ARGUMENT. */
function configFormatting(config: RecognitionConfigMessage, location: string) {
  return formattingRequest({ itn: config.itn ?? undefined, redact: config.redact || undefined }, `${location}.redact`);
}

/** The transcription options a Recognize config carries (the REST form's model, prompt, temperature, language, hotwords, itn, redact). */
function recognizeOptions(config: RecognitionConfigMessage): TranscriptionOptions {
  const model = config.model?.trim() ?? "";
  const prompt = config.prompt ?? "";
  const hotwords = configHotwords(config, "config");
  const language = config.language.trim();
  return {
    ...(hotwords.length > 0 ? { hotwords } : {}),
    // Checked against REST's schema by the config check above: "", "ar" or "en".
    ...(language === "ar" || language === "en" ? { language } : {}),
    formatting: configFormatting(config, "config"),
    ...(model !== "" ? { model } : {}),
    ...(prompt.trim() !== "" ? { prompt } : {}),
    ...(config.temperature ? { temperature: config.temperature } : {}),
  };
}

/** A redacted span as a Redaction message. */
const redactionMessage = (r: TimedRedaction) => ({
  type: r.type,
  start: r.start,
  end: r.end,
  channel: r.channel ?? 0,
  speaker: r.speaker ?? "",
});

/** A transcript as a RecognizeResponse. */
export function recognizeResponse(transcript: Transcript) {
  return {
    text: transcript.text,
    language: transcript.language,
    dialect: transcript.dialect ?? "",
    duration_seconds: transcript.duration,
    segments: transcript.segments.map((s) => ({
      id: s.id,
      start: s.start,
      end: s.end,
      text: s.text,
      words: s.words ? [...s.words] : [],
      dialect: s.dialect ?? "",
      channel: s.channel ?? 0,
      speaker: s.speaker ?? "",
      text_spoken: s.textSpoken ?? "",
    })),
    model: transcript.model ?? "",
    dialect_confidence: transcript.dialectConfidence ?? 0,
    text_spoken: transcript.textSpoken ?? "",
    redactions: (transcript.redactions ?? []).map(redactionMessage),
  };
}

/** The upload extension a container names, checked as REST checks an uploaded file's name. */
function containerExtension(container: string): string {
  const extension = allowedExtension(`audio.${container.trim().replace(/^\./, "")}`);
  if (!extension) throw new AppError("bad_request", Detail.invalidFileType);
  return extension;
}

/** Transcribes container bytes through a private temporary file, removed afterwards (D18). */
async function transcribeContainer(
  ctx: AppContext,
  asr: AsrService,
  audio: Uint8Array,
  extension: string,
  options: Parameters<AsrService["transcribeFile"]>[1],
): Promise<Transcript> {
  // REST's upload directory and name prefix, so a file left by a crash is swept at the next start.
  const path = join(
    uploadDir(ctx.config.paths.data_dir),
    `${UPLOAD_PREFIX}grpc-${randomBytes(16).toString("hex")}.${extension}`,
  );
  try {
    await writeFile(path, audio, { mode: 0o600, flag: "wx" });
    return await asr.transcribeFile(path, options);
  } finally {
    await rm(path, { force: true });
  }
}

/** Client messages kept in memory before reading pauses (each at most 128 KiB of audio). */
const READ_AHEAD = 8;

/**
 * Reads a call's client messages one at a time, pausing the call while READ_AHEAD are unread.
 * Events, not the Readable's async iterator: that iterator destroys the stream when the client
 * half-closes, and with it the response side, so the final results would never be sent.
 */
function clientMessages<T>(
  call: grpc.ServerDuplexStream<T, unknown>,
  signal: AbortSignal,
): { next(): Promise<IteratorResult<T>> } {
  const buffered: T[] = [];
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  call.on("data", (message: T) => {
    buffered.push(message);
    if (buffered.length >= READ_AHEAD) call.pause();
    notify();
  });
  call.once("end", () => {
    ended = true;
    notify();
  });
  call.once("error", (error: unknown) => {
    failure = error;
    notify();
  });
  signal.addEventListener("abort", notify, { once: true });
  return {
    async next() {
      while (true) {
        signal.throwIfAborted();
        if (failure !== undefined) throw failure;
        const message = buffered.shift();
        if (message !== undefined) {
          if (buffered.length < READ_AHEAD / 2 && call.isPaused()) call.resume();
          return { done: false, value: message };
        }
        if (ended) return { done: true, value: undefined };
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

/** Audio bytes of a recognition stream, with the chunk-size rule (decoding: ./pcm.ts). */
async function* streamAudio(messages: {
  next(): Promise<IteratorResult<StreamingRequestMessage>>;
}): AsyncIterable<Uint8Array> {
  while (true) {
    const next = await messages.next();
    if (next.done) return;
    const message = next.value;
    if (message.streaming_request !== "audio_content")
      throw new AppError("bad_request", "Only the first message may carry streaming_config");
    const content: Uint8Array = message.audio_content ?? new Uint8Array(0);
    if (content.length > MAX_STREAM_CHUNK_BYTES)
      throw new AppError("bad_request", `audio_content exceeds ${MAX_STREAM_CHUNK_BYTES} bytes`);
    if (content.length > 0) yield content;
  }
}

/** Audio between two interim results of a stream. */
export const INTERIM_MS = 1000;

/** A live event as a StreamingRecognizeResponse result, or null for events gRPC does not carry. */
function streamingResult(event: LiveEvent) {
  if (event.type !== "partial" && event.type !== "final") return null;
  // An utterance the recogniser heard nothing in has no result (a partial "" is never sent either).
  if (event.text === "") return null;
  return {
    transcript: event.text,
    is_final: event.type === "final",
    start_time: event.start,
    end_time: event.end,
    dialect: event.dialect ?? "",
    channel: event.channel ?? 0,
    speaker: event.speaker ?? "",
    redactions: event.type === "final" ? (event.redactions ?? []).map(redactionMessage) : [],
  };
}

/** Registers SpeechRecognition on the ASR port. */
export const registerAsr: GrpcRegistrar = (server, ctx, which) => {
  if (which !== "asr") return;
  const implementation = {
    Recognize: unaryMethod<RecognizeRequestMessage, unknown>(ctx, "asr.Recognize", async (message, scope) => {
      const config = message.config ?? EMPTY_CONFIG;
      checkConfig(config, "config");
      if (message.audio.length === 0) throw new AppError("bad_request", Detail.noFile);
      if (message.audio.length > ctx.config.asr.max_upload_mb * 1024 * 1024)
        throw uploadTooLarge(ctx.config.asr.max_upload_mb);
      const format = rawFormat(config.encoding, config.sample_rate_hz);
      if (!format) {
        const extension = containerExtension(config.container);
        const options = {
          ...scope.options,
          ...recognizeOptions(config),
          ...channelOptions(config),
        };
        return recognizeResponse(
          await transcribeContainer(ctx, readyService(ctx, "asr"), message.audio, extension, options),
        );
      }
      if (config.container !== "") throw invalid("config.container", `${config.encoding} audio has no container`);
      const asr = readyService(ctx, "asr");
      const options = { ...scope.options, ...recognizeOptions(config) };
      if ((config.channels ?? 0) > 1) {
        return recognizeResponse(await transcribeInterleaved(asr, message.audio, format, config, options));
      }
      const audio = rawToAsrRate(message.audio, format);
      return recognizeResponse(await asr.transcribeSamples(audio, options));
    }),

    StreamingRecognize: streamingMethod<grpc.ServerDuplexStream<StreamingRequestMessage, unknown>>(
      ctx,
      "asr.StreamingRecognize",
      async (call, scope) => {
        const { signal } = scope.options;
        const messages = clientMessages(call, signal);
        const first = await messages.next();
        if (first.done) return;
        const streaming =
          first.value.streaming_request === "streaming_config" ? first.value.streaming_config : undefined;
        if (!streaming) throw new AppError("bad_request", "The first message must carry streaming_config");
        const config = streaming.config ?? EMPTY_CONFIG;
        checkConfig(config, "streaming_config.config");
        const raw = rawFormat(config.encoding, config.sample_rate_hz);
        if (!raw)
          throw invalid("streaming_config.config.encoding", "StreamingRecognize takes LINEAR_PCM, MULAW or ALAW only");
        const format = { ...raw, channels: Math.max(1, config.channels ?? 0) };
        const speakers = config.speakers && config.speakers.length > 0 ? { speakers: config.speakers } : {};
        const hotwords = configHotwords(config, "streaming_config.config");
        const boost = hotwords.length > 0 ? { hotwords } : {};
        const formatting = configFormatting(config, "streaming_config.config");
        let failure: AppError | undefined;
        let writing = Promise.resolve();
        const session = openLiveSession(
          ctx,
          {
            door: "grpc",
            requestId: scope.requestId,
            caller: { scope },
            onEvent: (event) => {
              const result = streamingResult(event);
              if (result === null || (!result.is_final && !streaming.interim_results)) return;
              writing = writing.then(() => writeMessage(call, { results: [result] }, signal));
            },
            onEnd: (error) => {
              failure = error;
            },
          },
          format,
        );
        // The client cancelling ends the session at once: slot released, queued work dropped.
        const abandon = () => session.abandon();
        signal.addEventListener("abort", abandon, { once: true });
        try {
          const partialIntervalMs = streaming.interim_results ? INTERIM_MS : 0;
          const { language } = recognizeOptions(config);
          const live = {
            endpointing: "segments",
            turnDetection: null,
            partialIntervalMs,
            ...speakers,
            ...boost,
            ...(language ? { language } : {}),
            formatting,
          } as const;
          session.configure(live, format);
          for await (const bytes of streamAudio(messages)) {
            // Read the next message only once this one is transcribed and its results written:
            // HTTP/2 flow control then holds a client that sends faster than real time.
            await session.audio(bytes);
            await writing;
            if (failure) throw failure;
          }
          await session.finish();
          await writing;
          if (failure) throw failure;
        } catch (error) {
          session.abandon();
          throw error;
        } finally {
          signal.removeEventListener("abort", abandon);
        }
      },
    ),
  };
  server.addService(grpcService("asr"), implementation);
};
