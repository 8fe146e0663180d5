/**
 * REST speech answered as it is synthesised (D20): the response starts once the first sentence is
 * encoded and each later sentence follows as chunked transfer, for every format. Everything that
 * can fail before the first byte (auth, rate limit, validation, admission, engine readiness, a
 * synthesis with no audio) is thrown before a Response exists, so it keeps its contract status
 * and body. After the first byte there is no status left to change:
 * - raw audio (`stream_format: "audio"`, the default): the connection is cut without the last
 *   chunk, so the client sees a truncated body (curl: "transfer closed", fetch: a body error);
 * - SSE (`stream_format: "sse"`): an OpenAI-style `error` event, then the stream ends.
 * Either way one log line names the request. A client that disconnects cancels the stream: the
 * sentence being rendered is the last one and the admission slot frees at once.
 */
import * as v from "valibot";
import { type EncodedSpeechStream, SpeechFieldsSchema } from "../../core/tts.ts";
import { speechHeaders } from "../speech-headers.ts";
import { BODY_FIELDS, fieldErrors } from "../../errors/fields.ts";
import { AppError, Detail, toAppError } from "../../errors/taxonomy.ts";
import type { Logger } from "../../log/logger.ts";

/** How the body is delivered: raw audio bytes (default) or OpenAI's speech SSE events. */
export const STREAM_FORMATS = ["audio", "sse"] as const;
/** One stream format. */
export type StreamFormat = (typeof STREAM_FORMATS)[number];

/** Fields OpenAI's createSpeech sends that only the REST door knows (the speech fields are shared). */
export const SpeechRestFieldsSchema = v.object({
  stream_format: v.nullish(
    v.pipe(
      v.string("Expected a string"),
      v.description(
        "audio (default): the audio bytes, streamed as synthesised. sse: text/event-stream of speech.audio.delta (base64) then speech.audio.done.",
      ),
      v.metadata({ enum: STREAM_FORMATS }),
      v.examples(["audio"]),
    ),
  ),
  model: v.nullish(
    v.pipe(
      v.string("Expected a string"),
      v.description(
        "Accepted for OpenAI clients (e.g. tts-1) and not used: the installed packs speak; X-TTS-Engine says which.",
      ),
    ),
  ),
  instructions: v.nullish(
    v.pipe(
      v.string("Expected a string"),
      v.description("Accepted for OpenAI clients and ignored; the response carries X-TTS-Instructions: ignored."),
    ),
  ),
});

/** The whole JSON body of POST /v1/tts/audio/speech as the API docs show it: shared and REST-only fields. */
export const SpeechRestBodySchema = v.object(
  { ...SpeechFieldsSchema.entries, ...SpeechRestFieldsSchema.entries },
  "Expected a JSON object",
);

/** What the REST door reads besides the shared speech fields. */
export interface SpeechRestOptions {
  readonly streamFormat: StreamFormat;
  /** True when the client sent `instructions` (which Sawt does not follow). */
  readonly instructionsIgnored: boolean;
}

/** Reads the REST-only fields of a speech body (422 `body.*` on wrong types, 400 on unknown values). */
export function parseSpeechRestFields(body: unknown): SpeechRestOptions {
  const result = v.safeParse(
    SpeechRestFieldsSchema,
    typeof body === "object" && body !== null && !Array.isArray(body) ? body : {},
  );
  if (!result.success)
    throw new AppError("validation", Detail.validationFailed, { fields: fieldErrors(result.issues, BODY_FIELDS) });
  const streamFormat = result.output.stream_format?.trim() || "audio";
  if (!(STREAM_FORMATS as readonly string[]).includes(streamFormat)) {
    throw new AppError("bad_request", `Invalid stream_format. Allowed: ${STREAM_FORMATS.join(", ")}`);
  }
  return {
    streamFormat: streamFormat as StreamFormat,
    instructionsIgnored: (result.output.instructions ?? "").length > 0,
  };
}

/** Who the stream is for, for the one log line a failure after the first byte gets. */
export interface StreamContext {
  readonly log: Logger;
  readonly requestId: string | undefined;
  readonly inputChars: number;
}

/** The response for a started stream, raw or SSE. */
export function speechStreamResponse(
  stream: EncodedSpeechStream,
  options: SpeechRestOptions,
  context: StreamContext,
): Response {
  const headers = speechHeaders(stream);
  if (options.instructionsIgnored) headers["x-tts-instructions"] = "ignored";
  if (options.streamFormat === "sse") {
    // The audio's own content type stays visible to clients that want it.
    headers["x-audio-content-type"] = headers["content-type"]!;
    headers["content-type"] = "text/event-stream";
    return new Response(sseEvents(stream.audio, context), { headers });
  }
  return new Response(guardedAudio(stream.audio, context), { headers });
}

function logFailure(context: StreamContext, error: unknown): void {
  context.log.warn("speech stream failed after the first byte", {
    request_id: context.requestId,
    error: error instanceof Error ? error.message.split("\n")[0] : String(error),
  });
}

/** Passes audio through; an error after the first byte is logged, then cuts the response. */
function guardedAudio(audio: ReadableStream<Uint8Array>, context: StreamContext): ReadableStream<Uint8Array> {
  const reader = audio.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (error) {
        logFailure(context, error);
        controller.error(error);
      }
    },
    async cancel(reason) {
      await reader.cancel(reason);
    },
  });
}

const encoder = new TextEncoder();

function event(body: Record<string, unknown>): Uint8Array {
  return encoder.encode(`data: ${JSON.stringify(body)}\n\n`);
}

/**
 * OpenAI's speech SSE: one `speech.audio.delta` per encoded chunk (`audio` is base64, so the
 * deltas decoded and concatenated are exactly the raw stream), then `speech.audio.done` with a
 * `usage` object. Sawt has no tokens: `input_tokens` counts the input's code points and
 * `output_tokens` is 0. A failure after the first event is an `error` event in OpenAI's shape.
 */
function sseEvents(audio: ReadableStream<Uint8Array>, context: StreamContext): ReadableStream<Uint8Array> {
  const reader = audio.getReader();
  let finished = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (finished) return;
      try {
        const next = await reader.read();
        if (!next.done) {
          controller.enqueue(
            event({
              type: "speech.audio.delta",
              audio: Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength).toString("base64"),
            }),
          );
          return;
        }
        const usage = { input_tokens: context.inputChars, output_tokens: 0, total_tokens: context.inputChars };
        controller.enqueue(event({ type: "speech.audio.done", usage }));
      } catch (error) {
        logFailure(context, error);
        const failure = toAppError(error);
        controller.enqueue(
          event({ type: "error", error: { message: failure.detail, type: failure.errorField, code: failure.kind } }),
        );
      }
      finished = true;
      controller.close();
    },
    async cancel(reason) {
      await reader.cancel(reason);
    },
  });
}
