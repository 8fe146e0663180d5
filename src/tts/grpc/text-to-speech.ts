/**
 * sawt.tts.v1.TextToSpeech on the TTS port: a thin adapter over the same TtsService REST calls.
 * A request's fields are mapped onto the shared speech fields and validated by the one speech
 * schema (src/tts/schema.ts), with 422-style problems named by their proto fields
 * (`sample_rate_hz`); results are copied into messages. SynthesizeOnline and StreamSynthesize run
 * on the speech stream (./speech-stream.ts), as the WebSocket does, so each sentence is sent as
 * soon as it is encoded and SSML marks are reported; ListVoices lists what GET /v1/tts/voices lists.
 */
import type * as grpc from "@grpc/grpc-js";
import type { AppContext } from "../../core/context.ts";
import { readyService } from "../../edge/readiness.ts";
import type { FieldNaming } from "../../errors/fields.ts";
import { parseSpeech, parseSpeechSettings } from "../schema.ts";
import {
  resolutionMessage,
  type StreamSynthesizeMessage,
  streamSynthesize,
  synthesizeOnline,
} from "./speech-stream.ts";
import type { SpeechRequest } from "../types.ts";
import { voicesFor } from "../../edge/voice-listing.ts";
import { metadataHeaders, streamingMethod, unaryMethod } from "../../grpc/call.ts";
import { grpcService } from "../../grpc/services.ts";
import type { GrpcRegistrar } from "../../grpc/server.ts";

export { MAX_STREAM_AUDIO_BYTES } from "./speech-stream.ts";

/** SynthesizeRequest as proto-loader decodes it (proto field names). */
export interface SynthesizeRequestMessage {
  text: string;
  voice: string;
  dialect: string;
  response_format: string;
  speed?: number | null;
  sample_rate_hz?: number | null;
  /** The AudioEncoding enum by name (proto-loader `enums: String`); a number it does not know stays a number. */
  encoding?: string | number | null;
}

/** AudioEncoding names → the shared `encoding` field; UNSPECIFIED means the default. */
const ENCODINGS: Readonly<Record<string, string | undefined>> = {
  ENCODING_UNSPECIFIED: undefined,
  LINEAR_PCM: "pcm_s16le",
  MULAW: "pcm_mulaw",
  ALAW: "pcm_alaw",
};

/** Speech fields as SynthesizeRequest names them, for INVALID_ARGUMENT details. */
export const PROTO_FIELDS: FieldNaming = { root: "request", rename: { input: "text", sample_rate: "sample_rate_hz" } };

/**
 * The shared speech fields a request stands for; unset fields stay absent so the schema's
 * defaults apply (proto3 sends "" for an unset string).
 */
export function speechFields(message: SynthesizeRequestMessage): Record<string, unknown> {
  const fields: Record<string, unknown> = { input: message.text };
  if (message.voice) fields.voice = message.voice;
  if (message.dialect) fields.dialect = message.dialect;
  if (message.response_format) fields.response_format = message.response_format;
  if (message.speed !== undefined && message.speed !== null) fields.speed = message.speed;
  if (message.sample_rate_hz !== undefined && message.sample_rate_hz !== null)
    fields.sample_rate = message.sample_rate_hz;
  if (message.encoding !== undefined && message.encoding !== null) {
    // An enum value this server does not know is passed on as its number: refused as an unknown encoding.
    const encoding =
      typeof message.encoding === "string" && message.encoding in ENCODINGS
        ? ENCODINGS[message.encoding]
        : String(message.encoding);
    if (encoding !== undefined) fields.encoding = encoding;
  }
  return fields;
}

/** A listed voice as a Voice message (the library's cloned-voice views carry no language, dialects or engine). */
function voiceMessage(voice: ReturnType<typeof voicesFor>[number]) {
  const info = "language" in voice ? voice : undefined;
  return {
    voice_id: voice.voice_id,
    name: voice.name,
    type: voice.type,
    language: info?.language ?? "",
    dialects: info ? [...info.dialects] : [],
    engine: info?.engine ?? "cloned",
    status: voice.status ?? "",
  };
}

/** Validates a request; the `x-tts-dialect` metadata plays REST's X-TTS-Dialect header. */
function parseRequest(
  ctx: AppContext,
  message: SynthesizeRequestMessage,
  metadata: grpc.Metadata,
  defaultFormat?: string,
): SpeechRequest {
  const fields = speechFields(message);
  if (defaultFormat !== undefined) fields.response_format ??= defaultFormat;
  return parseSpeech(
    fields,
    { naming: PROTO_FIELDS, headerDialect: metadataHeaders(metadata).get("x-tts-dialect") },
    ctx.config,
  );
}

/** Registers TextToSpeech on the TTS port. */
export const registerTts: GrpcRegistrar = (server, ctx, which) => {
  if (which !== "tts") return;
  const implementation = {
    Synthesize: (
      call: grpc.ServerUnaryCall<SynthesizeRequestMessage, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) =>
      unaryMethod<SynthesizeRequestMessage, unknown>(ctx, "tts.Synthesize", async (message, scope) => {
        const request = parseRequest(ctx, message, call.metadata);
        const result = await readyService(ctx, "tts").synthesize(request, scope.options);
        return {
          audio: result.audio,
          content_type: result.contentType,
          sample_rate_hz: result.sampleRate,
          resolution: resolutionMessage(result),
          duration_seconds: result.durationSeconds,
          response_format: result.format,
        };
      })(call, callback),

    // The speech stream counts the request (one context): the call only verifies the key.
    SynthesizeOnline: streamingMethod<grpc.ServerWritableStream<SynthesizeRequestMessage, unknown>>(
      ctx,
      "tts.SynthesizeOnline",
      async (call, scope) => {
        const { input, ...settings } = parseRequest(ctx, call.request, call.metadata, "pcm");
        await synthesizeOnline(ctx, call, scope, settings, input);
      },
      { countsRequest: false },
    ),

    StreamSynthesize: streamingMethod<grpc.ServerDuplexStream<StreamSynthesizeMessage, unknown>>(
      ctx,
      "tts.StreamSynthesize",
      (call, scope) =>
        streamSynthesize(ctx, call, scope, (settings) => {
          const fields = speechFields({ ...(settings as unknown as SynthesizeRequestMessage), text: "" });
          const headerDialect = metadataHeaders(call.metadata).get("x-tts-dialect");
          return parseSpeechSettings(
            { response_format: "pcm", ...fields },
            { naming: PROTO_FIELDS, headerDialect },
            ctx.config,
          );
        }),
      { countsRequest: false },
    ),

    ListVoices: unaryMethod<unknown, unknown>(ctx, "tts.ListVoices", async (_message, scope) => ({
      voices: voicesFor(ctx, scope.keyId).map(voiceMessage),
    })),
  };
  server.addService(grpcService("tts"), implementation);
};
