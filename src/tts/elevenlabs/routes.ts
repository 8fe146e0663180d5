/**
 * ElevenLabs-compatible TTS (issue 40), so ElevenLabs' SDKs and the voice-bot frameworks'
 * ElevenLabs plugins speak with Sawt by their base URL (`http://<sawt>/v1`) alone:
 *
 * - `POST /v1/text-to-speech/{voice_id}` and `…/stream`: body `{"text", "model_id"?,
 *   "voice_settings"?, …}`, query `output_format` (./params.ts) → the audio, streamed as it is
 *   synthesised (REST speech's own path: one request of the key's limit);
 * - `GET /v1/text-to-speech/{voice_id}/stream-input` and `…/multi-stream-input`: the input
 *   streaming WebSockets (./socket.ts);
 * - `GET /v1/voices`: Sawt's voices (and the key's cloned ones) in ElevenLabs' shape.
 *
 * The key comes as `xi-api-key` (or Sawt's `X-API-Key`/Bearer; on the WebSockets also as
 * `xi_api_key` in the first message); errors keep ElevenLabs' shapes (./errors.ts).
 */
import { Elysia } from "elysia";
import type { AppContext } from "../../core/context.ts";
import { readyService } from "../../edge/readiness.ts";
import { voicesFor } from "../../edge/voice-listing.ts";
import { AppError } from "../../errors/taxonomy.ts";
import { presentedKey } from "../../edge/auth.ts";
import { authenticateRequest, respondAuthenticated } from "../../http/auth.ts";
import { readJsonBody } from "../../http/body.ts";
import { answerErrorsAs } from "../../http/errors.ts";
import { type DoorSocket, type OpenUpgrade, webSocketRoutes } from "../../http/ws-route.ts";
import { parseSpeech, textTooLong } from "../schema.ts";
import { speechHeaders } from "../speech-headers.ts";
import { ELEVENLABS_ERRORS, ELEVENLABS_KEY_SOURCES, elevenLabsCloseFrame, elevenLabsErrorMessage } from "./errors.ts";
import { EL_FIELDS, elevenLabsSettings, refuseUnsupported } from "./params.ts";
import { ElevenLabsConnection } from "./socket.ts";

/** Largest client frame of the input-streaming sockets. */
const MAX_FRAME_BYTES = 512 * 1024;

/** The voice id of a `/v1/text-to-speech/{voice_id}/…` path. */
function voiceIdOf(request: Request): string {
  return new URL(request.url).pathname.split("/")[3] ?? "";
}

/** POST /v1/text-to-speech/{voice_id}[/stream]: one synthesis, streamed as it is made. */
async function speak(ctx: AppContext, request: Request, voiceId: string): Promise<Response> {
  answerErrorsAs(request, ELEVENLABS_ERRORS);
  return respondAuthenticated(ctx, request, ELEVENLABS_KEY_SOURCES, async (caller) => {
    const body = await readJsonBody(request, ctx.config.server.max_json_bytes, () => textTooLong(ctx.config));
    if (typeof body !== "object" || body === null || Array.isArray(body))
      throw new AppError("bad_request", 'The body must be a JSON object with "text"');
    const fields = body as Record<string, unknown>;
    refuseUnsupported(fields);
    const params = new URL(request.url).searchParams;
    const settings = elevenLabsSettings(voiceId, params.get("output_format"), fields.voice_settings, ctx.config);
    const speech = parseSpeech(
      {
        input: fields.text,
        voice: settings.voice,
        response_format: settings.responseFormat,
        sample_rate: settings.sampleRate,
        encoding: settings.encoding,
        speed: settings.speed,
      },
      { naming: EL_FIELDS },
      ctx.config,
    );
    const stream = await readyService(ctx, "tts").synthesizeEncodedStream(speech, {
      signal: request.signal,
      keyId: caller.key.id,
    });
    return new Response(stream.audio, { headers: speechHeaders(stream) });
  });
}

/** GET /v1/voices: every voice the key may use, in ElevenLabs' shape. */
function voices(ctx: AppContext, request: Request) {
  answerErrorsAs(request, ELEVENLABS_ERRORS);
  const { key } = authenticateRequest(ctx, request, ELEVENLABS_KEY_SOURCES);
  return {
    voices: voicesFor(ctx, key.id).map((voice) => {
      const info = "language" in voice ? voice : undefined;
      return {
        voice_id: voice.voice_id,
        name: voice.name,
        category: voice.type === "cloned" ? "cloned" : "premade",
        labels: {
          language: info?.language ?? "ar",
          dialects: (info?.dialects ?? []).join(" "),
          engine: info?.engine ?? "cloned",
        },
        description: info
          ? `Sawt ${voice.name}: ${info.language}, ${info.dialects.join(", ") || "any dialect"}`
          : "Cloned voice",
        preview_url: null,
        settings: null,
      };
    }),
  };
}

/** The ElevenLabs-compatible TTS plugin. */
export function elevenLabsRoutes(ctx: AppContext) {
  const socket = (multi: boolean) =>
    webSocketRoutes(ctx, {
      name: multi ? "tts-elevenlabs-multi" : "tts-elevenlabs-single",
      paths: [multi ? "/v1/text-to-speech/:voice_id/multi-stream-input" : "/v1/text-to-speech/:voice_id/stream-input"],
      maxPayloadLength: MAX_FRAME_BYTES,
      idleTimeout: 960,
      checkUpgrade: (request) => {
        const params = new URL(request.url).searchParams;
        refuseUnsupported({ apply_text_normalization: params.get("apply_text_normalization") ?? undefined });
        elevenLabsSettings(voiceIdOf(request), params.get("output_format"), undefined, ctx.config);
      },
      presentedKey: (headers) => presentedKey(headers, ELEVENLABS_KEY_SOURCES),
      errorShape: ELEVENLABS_ERRORS,
      errorEvent: (error) => elevenLabsErrorMessage(error),
      // A socket refused at open (engine not ready, rate limit) closes as its later failures do.
      closeFrame: elevenLabsCloseFrame,
      connect: (ws, upgrade) => connection(ws, upgrade),
      connectKeyLater: (ws, upgrade) => connection(ws, upgrade),
    });
  const connection = (ws: DoorSocket, upgrade: OpenUpgrade) => {
    const url = new URL(upgrade.request.url);
    return new ElevenLabsConnection(ctx, ws, upgrade, {
      voiceId: voiceIdOf(upgrade.request),
      query: url.searchParams,
      multi: url.pathname.endsWith("/multi-stream-input"),
    });
  };
  // ElevenLabs' own API reference documents these routes (docs/voice-bots.md says what Sawt takes).
  const detail = { hide: true };
  return new Elysia({ name: "tts-elevenlabs" })
    .use(socket(false))
    .use(socket(true))
    .post("/v1/text-to-speech/:voice_id", ({ request, params }) => speak(ctx, request, params.voice_id), {
      parse: "none",
      detail,
    })
    .post("/v1/text-to-speech/:voice_id/stream", ({ request, params }) => speak(ctx, request, params.voice_id), {
      parse: "none",
      detail,
    })
    .get("/v1/voices", ({ request }) => voices(ctx, request), { detail });
}
