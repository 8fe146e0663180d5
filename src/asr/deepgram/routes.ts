/**
 * Deepgram's speech-to-text API (developers.deepgram.com "Live audio", "Pre-recorded audio") at
 * `/v1/listen`, so Deepgram's clients (LiveKit Agents' and Pipecat's plugins, jambonz's on-prem
 * option, `@deepgram/sdk`) work against Sawt by their base URL alone (docs/voice-bots.md):
 *
 * - `GET /v1/listen` upgraded to a WebSocket: live transcription on the live core (./connection.ts).
 *   The query is checked before the 101 (a 400 in Deepgram's body), the key is read as Deepgram's
 *   clients send it (`Authorization: Token`, or Bearer, X-API-Key, or the `token, <key>`
 *   subprotocols a browser sends, `token` then named in the 101); a refused upgrade gets Deepgram's
 *   error body and `dg-error` header. The session counts one request of the key's rate limit.
 * - `POST /v1/listen`: a recording (./prerecorded.ts).
 *
 * Both are Deepgram's protocol, documented in docs/voice-bots.md, not in Sawt's own OpenAPI.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../../core/context.ts";
import { presentedKey } from "../../edge/auth.ts";
import { webSocketRoutes } from "../../http/ws-route.ts";
import { DeepgramConnection } from "./connection.ts";
import { listenParams } from "./params.ts";
import {
  DEEPGRAM_ERRORS,
  DEEPGRAM_KEY_SOURCES,
  deepgramCloseFrame,
  deepgramErrorMessage,
  deepgramUpgradeHeaders,
} from "../../http/deepgram.ts";
import { transcribeRecording } from "./prerecorded.ts";

/** Bun's own frame limit: above the door's (./connection.ts MAX_FRAME_BYTES), which answers first in Deepgram's shape. */
const SOCKET_MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

/** The query of an upgrade, read (and refused) as the live door reads it. */
const liveParams = (request: Request) => listenParams(new URL(request.url).searchParams, true);

/** The `/v1/listen` plugin: the live WebSocket and the pre-recorded POST. */
export function deepgramListenRoutes(ctx: AppContext) {
  const live = webSocketRoutes(ctx, {
    name: "asr-deepgram-live",
    paths: ["/v1/listen"],
    maxPayloadLength: SOCKET_MAX_PAYLOAD_BYTES,
    // Bun's own idle timeout stays above Sawt's (streaming.idle_timeout_s), which answers first.
    idleTimeout: 960,
    errorShape: DEEPGRAM_ERRORS,
    checkUpgrade: (request) => void liveParams(request),
    presentedKey: (headers) => presentedKey(headers, DEEPGRAM_KEY_SOURCES),
    upgrade: ({ request }) => deepgramUpgradeHeaders(request.headers),
    // Refused after the 101 (rate limit, engine busy or not ready): Deepgram's message and close frame.
    errorEvent: (error) => deepgramErrorMessage(error),
    closeFrame: (error) => deepgramCloseFrame(error),
    connect: (socket, upgrade) => new DeepgramConnection(ctx, socket, upgrade, liveParams(upgrade.request)),
  });
  return new Elysia({ name: "asr-deepgram" })
    .use(live)
    .post("/v1/listen", ({ request, set }) => transcribeRecording(ctx, request, String(set.headers["x-request-id"])), {
      parse: "none",
      detail: { hide: true },
    });
}
