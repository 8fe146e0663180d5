/**
 * OpenAI Realtime transcription over WebSocket: `GET /v1/realtime?intent=transcription` and the
 * alias `GET /v1/asr/realtime`. The key is checked at the upgrade — `Authorization: Bearer`,
 * `X-API-Key`, or the `openai-insecure-api-key.<key>` subprotocol browsers use (the `realtime`
 * subprotocol is then echoed, as OpenAI does); a refused upgrade gets the REST 401 response. A
 * session refused after the upgrade (engine busy or not ready) gets an `error` event, then a
 * close. The protocol itself is ./connection.ts.
 */
import type { AppContext } from "../../core/context.ts";
import { type KeySources, offeredSubprotocols, presentedKey } from "../../edge/auth.ts";
import { AppError } from "../../errors/taxonomy.ts";
import { webSocketRoutes } from "../../http/ws-route.ts";
import { RealtimeConnection } from "./connection.ts";
import { realtimeErrorEvent } from "./error-event.ts";

/** Largest client frame: OpenAI caps one append at 15 MiB of base64. */
export const REALTIME_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const KEY_PROTOCOL = "openai-insecure-api-key.";

/** Where an OpenAI client presents the key beyond the headers: the browser subprotocol. */
const KEY_SOURCES: KeySources = { subprotocols: [{ prefix: KEY_PROTOCOL }] };

/** The realtime transcription WebSocket plugin. */
export function realtimeRoutes(ctx: AppContext) {
  return webSocketRoutes(ctx, {
    name: "asr-realtime",
    paths: ["/v1/realtime", "/v1/asr/realtime"],
    maxPayloadLength: REALTIME_MAX_MESSAGE_BYTES,
    // Bun's own idle timeout stays above Sawt's (streaming.idle_timeout_s), which answers first with an error event.
    idleTimeout: 960,
    checkUpgrade(request) {
      const url = new URL(request.url);
      const intent = url.searchParams.get("intent");
      if (url.pathname === "/v1/realtime" && intent !== "transcription") {
        throw new AppError("bad_request", "Only transcription sessions are served: connect with ?intent=transcription");
      }
    },
    presentedKey: (headers) => presentedKey(headers, KEY_SOURCES),
    upgrade({ request }) {
      return offeredSubprotocols(request.headers).includes("realtime") ? { "sec-websocket-protocol": "realtime" } : {};
    },
    errorEvent: (error, socket) => realtimeErrorEvent(error, { eventId: `event_${socket.id}` }),
    connect: (socket, { key, requestId, request }) =>
      new RealtimeConnection(ctx, socket, {
        key,
        requestId,
        beta: /realtime=v1/i.test(request.headers.get("openai-beta") ?? ""),
      }),
  });
}
