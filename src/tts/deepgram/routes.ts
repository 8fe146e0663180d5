/**
 * Deepgram-compatible TTS (issue 40): `POST /v1/speak` and the WebSocket `GET /v1/speak`, so
 * Deepgram's SDKs and the voice-bot frameworks' Deepgram plugins speak with Sawt by their base URL
 * alone. The query is Deepgram's (./params.ts); the key comes as `Authorization: Token <key>`, as
 * `Bearer`, as Sawt's `X-API-Key`, or (WebSocket, browsers) as the `token` subprotocol; errors
 * keep Deepgram's shapes (src/http/deepgram.ts, shared with the speech-to-text door).
 *
 * REST: body `{"text": "…"}` → the audio, streamed as it is synthesised (REST speech's own path:
 * one request of the key's limit), with Deepgram's `dg-*` headers beside Sawt's `X-TTS-*`.
 * WebSocket: ./socket.ts.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../../core/context.ts";
import { readyService } from "../../edge/readiness.ts";
import { AppError } from "../../errors/taxonomy.ts";
import { presentedKey } from "../../edge/auth.ts";
import { respondAuthenticated } from "../../http/auth.ts";
import { readJsonBody } from "../../http/body.ts";
import {
  DEEPGRAM_ERRORS,
  DEEPGRAM_KEY_SOURCES,
  deepgramCloseFrame,
  deepgramErrorMessage,
  deepgramUpgradeHeaders,
} from "../../http/deepgram.ts";
import { answerErrorsAs } from "../../http/errors.ts";
import { webSocketRoutes } from "../../http/ws-route.ts";
import { codePointLength } from "../frontend/length.ts";
import { speechHeaders } from "../speech-headers.ts";
import { parseSpeech, textTooLong } from "../schema.ts";
import { parseSpeakQuery, QUERY_FIELDS } from "./params.ts";
import { DeepgramSpeakConnection } from "./socket.ts";

/** Largest client frame of the TTS WebSocket (a Speak message with up to 51,200 code points). */
const MAX_FRAME_BYTES = 512 * 1024;

/** POST /v1/speak: one synthesis, streamed as it is made. */
async function speak(ctx: AppContext, request: Request, requestId: string | undefined): Promise<Response> {
  answerErrorsAs(request, DEEPGRAM_ERRORS);
  return respondAuthenticated(ctx, request, DEEPGRAM_KEY_SOURCES, async (caller) => {
    const query = parseSpeakQuery(new URL(request.url).searchParams, ctx.config);
    const body = await readJsonBody(request, ctx.config.server.max_json_bytes, () => textTooLong(ctx.config));
    const text =
      typeof body === "object" && body !== null && !Array.isArray(body) ? (body as { text?: unknown }).text : undefined;
    if (typeof text !== "string") throw new AppError("bad_request", 'The body must be JSON {"text": "…"}');
    const { voice, responseFormat, speed, dialect, sampleRate, encoding } = query.settings;
    const speech = parseSpeech(
      { input: text, voice, response_format: responseFormat, speed, dialect, sample_rate: sampleRate, encoding },
      { naming: QUERY_FIELDS },
      ctx.config,
    );
    const stream = await readyService(ctx, "tts").synthesizeEncodedStream(speech, {
      signal: request.signal,
      keyId: caller.key.id,
    });
    return new Response(stream.audio, {
      headers: {
        ...speechHeaders(stream),
        "dg-request-id": requestId ?? "",
        "dg-model-name": stream.voice,
        "dg-char-count": String(codePointLength(text)),
      },
    });
  });
}

/** The Deepgram-compatible TTS plugin: REST and WebSocket on /v1/speak. */
export function deepgramSpeakRoutes(ctx: AppContext) {
  const socket = webSocketRoutes(ctx, {
    name: "tts-deepgram-ws",
    paths: ["/v1/speak"],
    maxPayloadLength: MAX_FRAME_BYTES,
    idleTimeout: 960,
    checkUpgrade: (request) => void parseSpeakQuery(new URL(request.url).searchParams, ctx.config),
    presentedKey: (headers) => presentedKey(headers, DEEPGRAM_KEY_SOURCES),
    upgrade: ({ request }) => deepgramUpgradeHeaders(request.headers),
    errorShape: DEEPGRAM_ERRORS,
    errorEvent: (error) => deepgramErrorMessage(error),
    closeFrame: (error) => deepgramCloseFrame(error),
    connect: (ws, upgrade) => new DeepgramSpeakConnection(ctx, ws, upgrade),
  });
  return new Elysia({ name: "tts-deepgram" })
    .use(socket)
    .post("/v1/speak", ({ request, set }) => speak(ctx, request, set.headers["x-request-id"] as string | undefined), {
      parse: "none",
      // Deepgram's own API reference documents this route (docs/voice-bots.md says what Sawt takes).
      detail: { hide: true },
    });
}
