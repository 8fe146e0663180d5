/**
 * REST front door of TTS: POST /v1/tts/audio/speech and its alias /v1/audio/speech (D16). Auth and
 * rate limit, a size-capped JSON body, validation by the one speech schema, the engine gate, then
 * the service. The response reports what was actually used (D2) and the sample rate (D8).
 */
import { Elysia } from "elysia";
import type { OpenAPIV3 } from "openapi-types";
import type { AppContext } from "../../core/context.ts";
import { readyService } from "../../edge/readiness.ts";
import { authPlugin, type Caller } from "../../http/auth.ts";
import { readJsonBody } from "../../http/body.ts";
import { authedOperation, AUTHED_HEADERS, ref } from "../../http/openapi.ts";
import { codePointLength } from "../frontend/length.ts";
import { parseSpeechRestFields, type SpeechRestOptions, speechStreamResponse } from "./stream.ts";
import { parseSpeechRequest, textTooLong } from "../schema.ts";
import type { SpeechRequest } from "../types.ts";

/** Validates a decoded JSON body plus the `X-TTS-Dialect` header; 422 fields are named `body.*`. */
export function parseSpeechBody(ctx: AppContext, body: unknown, headerDialect: string | null): SpeechRequest {
  return parseSpeechRequest(body, headerDialect, ctx.config);
}

/**
 * Starts a streamed synthesis for an authorised caller and answers with it (raw audio or SSE, see
 * ./http-stream.ts). Throws before any byte for every error with a contract status; the request's
 * signal drops queued work and stops synthesis when the client goes away.
 */
export async function streamSpeech(
  ctx: AppContext,
  request: Request,
  speech: SpeechRequest,
  rest: SpeechRestOptions,
  keyId: string,
  requestId: string | undefined,
): Promise<Response> {
  const stream = await readyService(ctx, "tts").synthesizeEncodedStream(speech, { signal: request.signal, keyId });
  return speechStreamResponse(stream, rest, { log: ctx.log, requestId, inputChars: codePointLength(speech.input) });
}

const SPEECH_SUCCESS: OpenAPIV3.ResponseObject = {
  description: "The audio, in the requested format. Headers report what was actually used.",
  headers: {
    ...AUTHED_HEADERS,
    "X-TTS-Voice": ref("headers", "X-TTS-Voice"),
    "X-TTS-Dialect": ref("headers", "X-TTS-Dialect"),
    "X-TTS-Engine": ref("headers", "X-TTS-Engine"),
    "X-TTS-Fallback": ref("headers", "X-TTS-Fallback"),
    "X-TTS-Voices": ref("headers", "X-TTS-Voices"),
    "X-Sample-Rate": ref("headers", "X-Sample-Rate"),
    "X-TTS-Instructions": ref("headers", "X-TTS-Instructions"),
    "X-Audio-Content-Type": ref("headers", "X-Audio-Content-Type"),
  },
  content: {
    ...Object.fromEntries(
      ["audio/mpeg", "audio/wav", "audio/ogg", "audio/flac", "audio/aac", "audio/pcm", "audio/pcmu", "audio/pcma"].map(
        (type) => [type, { schema: { type: "string", format: "binary" } }],
      ),
    ),
    "text/event-stream": {
      schema: { type: "string" },
      example:
        'data: {"type":"speech.audio.delta","audio":"UklGR…"}\n\ndata: {"type":"speech.audio.done","usage":{"input_tokens":9,"output_tokens":0,"total_tokens":9}}\n\n',
    },
  },
};

/** The OpenAPI operation of a speech route. */
function speechOperation(operationId: string, alias: boolean): OpenAPIV3.OperationObject {
  return authedOperation({
    operationId,
    summary: alias ? "Generate speech (released v2 path, alias)" : "Generate speech",
    description:
      (alias
        ? "Alias of POST /v1/tts/audio/speech, kept for clients of the 2.0.0 path and OpenAI's SDKs; " +
          "`pcm` without `sample_rate` is 24 kHz here, as OpenAI documents (D24).\n\n"
        : "") +
      "Synthesises `input` with a voice and dialect. The dialect comes from the body, else the `X-TTS-Dialect` header; " +
      "an unknown value counts as omitted. An unknown or removed voice (Nouf, Atheer) falls back to Yara and `X-TTS-Fallback` says why. " +
      "The audio is streamed as it is synthesised (chunked, sentence by sentence; WAV with an unknown-length header); errors come before the first byte. " +
      "`stream_format: sse` sends OpenAI's `speech.audio.delta`/`speech.audio.done` events instead. " +
      "`encoding` pcm_mulaw / pcm_alaw gives G.711 for pcm (audio/pcmu, audio/pcma) and wav. " +
      "Every request counts against the key's rate limit, whatever its outcome.",
    tags: ["TTS"],
    parameters: [
      {
        name: "X-TTS-Dialect",
        in: "header",
        required: false,
        description: "Dialect when the body has none.",
        schema: { type: "string", example: "ar-egyptian" },
      },
    ],
    requestBody: {
      required: true,
      content: {
        "application/json": {
          schema: ref("schemas", "SpeechRequest"),
          examples: {
            najdi: {
              summary: "Najdi (Yara)",
              value: {
                input: "هلا والله، وش أقدر أخدمك فيه اليوم؟",
                voice: "Yara",
                dialect: "ar-najdi",
                response_format: "mp3",
              },
            },
            egyptian: {
              summary: "Egyptian (Sherine)",
              value: { input: "أهلاً بيك، إزاي أقدر أساعدك النهارده؟", dialect: "ar-egyptian", response_format: "wav" },
            },
            telephony: {
              summary: "8 kHz PCM for an IVR",
              value: { input: "رقم طلبك هو ١٢٣٤٥", response_format: "pcm", sample_rate: 8000, speed: 1.1 },
            },
          },
        },
      },
    },
    success: { "200": SPEECH_SUCCESS },
    errors: [400, 413, 422, 503, 504],
  });
}

/** OpenAI's documented rate of `pcm` (raw 24 kHz 16-bit little-endian), which its clients play it at. */
export const OPENAI_PCM_SAMPLE_RATE = 24000;

/**
 * The request as the OpenAI alias reads it (D24): `pcm` without a `sample_rate` is 24 kHz, as
 * OpenAI documents and its clients assume; Sawt's own path keeps the voice's rate (D8).
 */
export function openAiSpeech(speech: SpeechRequest): SpeechRequest {
  if (speech.responseFormat !== "pcm" || speech.sampleRate !== undefined) return speech;
  return { ...speech, sampleRate: OPENAI_PCM_SAMPLE_RATE };
}

/** The TTS REST plugin. */
export function ttsRoutes(ctx: AppContext) {
  const speak = async (
    request: Request,
    caller: Caller,
    requestId: string | undefined,
    openAi: boolean,
  ): Promise<Response> => {
    const body = await readJsonBody(request, ctx.config.server.max_json_bytes, () => textTooLong(ctx.config));
    const parsed = parseSpeechBody(ctx, body, request.headers.get("x-tts-dialect"));
    const speech = openAi ? openAiSpeech(parsed) : parsed;
    const rest = parseSpeechRestFields(body);
    return await streamSpeech(ctx, request, speech, rest, caller.key.id, requestId);
  };
  return new Elysia({ name: "tts-http" })
    .use(authPlugin(ctx))
    .post(
      "/v1/tts/audio/speech",
      ({ request, caller, set }) => speak(request, caller, set.headers["x-request-id"] as string | undefined, false),
      {
        auth: true,
        parse: "none",
        detail: speechOperation("createSpeech", false),
      },
    )
    .post(
      "/v1/audio/speech",
      ({ request, caller, set }) => speak(request, caller, set.headers["x-request-id"] as string | undefined, true),
      {
        auth: true,
        parse: "none",
        detail: speechOperation("createSpeechAlias", true),
      },
    );
}
