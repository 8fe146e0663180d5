/**
 * sawt.tts.v1.TextToSpeech on the TTS port: a thin adapter over the same TtsService REST calls.
 * Requests become the REST body shape and go through REST's `parseSpeech` and the edge's readiness
 * gate, so validation, engine readiness and their detail texts are REST's; results are copied into
 * messages. SynthesizeOnline streams each sentence as soon as the engine yields it, encoded as one
 * continuous stream (as the WebSocket does); ListVoices lists what GET /v1/tts/voices lists.
 */
import type * as grpc from "@grpc/grpc-js";
import { describeEncoding, encodeAudioStream } from "../audio/encode.ts";
import { readyService } from "../edge/readiness.ts";
import { parseSpeech } from "../tts/http.ts";
import type { SpeechResolution } from "../tts/types.ts";
import { voicesFor } from "../voices/listing.ts";
import { metadataHeaders, streamingMethod, unaryMethod, writeMessage } from "./call.ts";
import { loadProtos, SERVICE, serviceDefinition } from "./protos.ts";
import type { GrpcRegistrar } from "./server.ts";

/** Largest audio payload of one SynthesizeOnline message. */
export const MAX_STREAM_AUDIO_BYTES = 65536;

/** SynthesizeRequest as proto-loader decodes it (proto field names). */
export interface SynthesizeRequestMessage {
  text: string;
  voice: string;
  dialect: string;
  response_format: string;
  speed?: number | null;
  sample_rate_hz?: number | null;
}

interface ResolutionMessage {
  voice: string;
  dialect: string;
  engine: string;
  fallback: string;
}

/** The REST body a request stands for; unset fields stay absent so REST defaults apply. */
export function speechBody(message: SynthesizeRequestMessage): Record<string, unknown> {
  const body: Record<string, unknown> = { input: message.text };
  if (message.voice) body.voice = message.voice;
  if (message.dialect) body.dialect = message.dialect;
  if (message.response_format) body.response_format = message.response_format;
  if (message.speed !== undefined && message.speed !== null) body.speed = message.speed;
  if (message.sample_rate_hz !== undefined && message.sample_rate_hz !== null) body.sample_rate = message.sample_rate_hz;
  return body;
}

function resolutionMessage(resolution: SpeechResolution): ResolutionMessage {
  return { voice: resolution.voice, dialect: resolution.dialect, engine: resolution.engine, fallback: resolution.fallback ?? "" };
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

/** The dialect header REST reads (X-TTS-Dialect), as metadata. */
function headerDialect(call: { metadata: grpc.Metadata }): string | null {
  return metadataHeaders(call.metadata).get("x-tts-dialect");
}

/** Registers TextToSpeech on the TTS port. */
export const registerTts: GrpcRegistrar = (server, ctx, which) => {
  if (which !== "tts") return;
  const implementation = {
    Synthesize: (call: grpc.ServerUnaryCall<SynthesizeRequestMessage, unknown>, callback: grpc.sendUnaryData<unknown>) =>
      unaryMethod<SynthesizeRequestMessage, unknown>(ctx, "tts.Synthesize", async (message, scope) => {
        const request = parseSpeech(ctx, speechBody(message), headerDialect(call));
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

    SynthesizeOnline: streamingMethod<grpc.ServerWritableStream<SynthesizeRequestMessage, unknown>>(ctx, "tts.SynthesizeOnline", async (call, scope) => {
      const body = speechBody(call.request);
      body.response_format ??= "pcm";
      const request = parseSpeech(ctx, body, headerDialect(call));
      const { signal } = scope.options;
      const { resolution, chunks } = readyService(ctx, "tts").synthesizeStream(request, scope.options);
      // The first sentence fixes the rate the stream is encoded from (as the WebSocket does).
      const sentences = chunks[Symbol.asyncIterator]();
      const first = await sentences.next();
      if (first.done) return;
      const encoding = describeEncoding(request.responseFormat, first.value.sampleRate, { targetSampleRate: request.sampleRate });
      async function* pcm(): AsyncGenerator<Float32Array> {
        yield first.value!.pcm;
        for (let step = await sentences.next(); !step.done; step = await sentences.next()) yield step.value.pcm;
      }
      const stream = encodeAudioStream(pcm(), first.value.sampleRate, request.responseFormat, { targetSampleRate: request.sampleRate, signal });
      let firstMessage = true;
      for await (const part of stream) {
        for (let offset = 0; offset < part.byteLength; offset += MAX_STREAM_AUDIO_BYTES) {
          const message = {
            audio: part.subarray(offset, offset + MAX_STREAM_AUDIO_BYTES),
            sample_rate_hz: encoding.sampleRate,
            content_type: encoding.contentType,
            resolution: firstMessage ? resolutionMessage(resolution) : undefined,
          };
          firstMessage = false;
          await writeMessage(call, message, signal);
        }
        // Between sentences the pipeline may only await microtasks (and any synchronous stage
        // blocks the loop); a macrotask turn lets the socket send this sentence before the next.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }),

    ListVoices: unaryMethod<unknown, unknown>(ctx, "tts.ListVoices", async (_message, scope) => ({
      voices: voicesFor(ctx, scope.keyId).map(voiceMessage),
    })),
  };
  server.addService(serviceDefinition(loadProtos().tts, SERVICE.tts), implementation);
};
