/**
 * OpenAI Realtime transcription over WebSocket: `GET /v1/realtime?intent=transcription` and the
 * alias `GET /v1/asr/realtime`. The key is checked at the upgrade — `Authorization: Bearer`,
 * `X-API-Key`, or the `openai-insecure-api-key.<key>` subprotocol browsers use (the `realtime`
 * subprotocol is then echoed, as OpenAI does); a refused upgrade gets the REST 401 response. A
 * session refused after the upgrade (engine busy or not ready) gets an `error` event, then a
 * close. The protocol itself is ./connection.ts.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../../core/context.ts";
import { presentedKey, verify } from "../../edge/auth.ts";
import { errorBody } from "../../edge/error-body.ts";
import { requestIdFrom } from "../../edge/request-id.ts";
import { AppError, toAppError } from "../../errors/taxonomy.ts";
import type { ApiKeyRecord } from "../../store/keys.ts";
import { closeCodeFor } from "../../http/ws-close.ts";
import { RealtimeConnection } from "./connection.ts";

/** Largest client frame: OpenAI caps one append at 15 MiB of base64. */
export const REALTIME_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const KEY_PROTOCOL = "openai-insecure-api-key.";

/** Subprotocols the client offered. */
function offeredProtocols(headers: Headers): string[] {
  return (headers.get("sec-websocket-protocol") ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
}

/** The key from the headers, or else from the browser subprotocol. */
function upgradeKey(headers: Headers): string | undefined {
  return (
    presentedKey(headers) ??
    offeredProtocols(headers)
      .find((p) => p.startsWith(KEY_PROTOCOL))
      ?.slice(KEY_PROTOCOL.length)
  );
}

interface Upgraded {
  key: ApiKeyRecord;
  requestId: string;
  beta: boolean;
}

/** The realtime transcription WebSocket plugin. */
export function realtimeRoutes(ctx: AppContext) {
  const connections = new Map<string, RealtimeConnection>();
  const upgraded = new WeakMap<Request, Upgraded>();
  const route = {
    maxPayloadLength: REALTIME_MAX_MESSAGE_BYTES,
    // Bun's own idle timeout stays above Sawt's (streaming.idle_timeout_s), which answers first with an error event.
    idleTimeout: 960,
    beforeHandle({ request, set }: { request: Request; set: { headers: Record<string, unknown> } }) {
      const url = new URL(request.url);
      const intent = url.searchParams.get("intent");
      if (url.pathname === "/v1/realtime" && intent !== "transcription") {
        throw new AppError("bad_request", "Only transcription sessions are served: connect with ?intent=transcription");
      }
      const key = verify(ctx, upgradeKey(request.headers));
      const sent = set.headers["x-request-id"];
      const beta = /realtime=v1/i.test(request.headers.get("openai-beta") ?? "");
      upgraded.set(request, { key, requestId: typeof sent === "string" ? sent : requestIdFrom(request.headers), beta });
    },
    upgrade({ request }: { request: Request }) {
      return offeredProtocols(request.headers).includes("realtime") ? { "sec-websocket-protocol": "realtime" } : {};
    },
    open(ws: {
      id: string;
      data: { request: Request };
      send(data: string): unknown;
      close(code?: number, reason?: string): unknown;
    }) {
      const init = upgraded.get(ws.data.request);
      if (!init) {
        ws.close(1008, "unauthorized");
        return;
      }
      const socket = {
        sendJson: (event: Record<string, unknown>) => ws.send(JSON.stringify(event)),
        close: (code: number, reason: string) => ws.close(code, reason),
      };
      try {
        connections.set(ws.id, new RealtimeConnection(ctx, socket, init));
      } catch (thrown) {
        const error = toAppError(thrown);
        const type = error.status >= 500 ? "server_error" : "invalid_request_error";
        socket.sendJson({
          type: "error",
          event_id: `event_${ws.id}`,
          error: {
            type,
            code: `http_${error.status}`,
            message: error.detail,
            param: null,
            event_id: null,
            sawt: { status: error.status, ...errorBody(error) },
          },
        });
        socket.close(closeCodeFor(error), error.detail.slice(0, 120));
      }
    },
    message(ws: { id: string }, message: unknown) {
      connections.get(ws.id)?.receive(message);
    },
    close(ws: { id: string }) {
      connections.get(ws.id)?.abandon();
      connections.delete(ws.id);
    },
  };
  return new Elysia({ name: "asr-realtime" }).ws("/v1/realtime", route).ws("/v1/asr/realtime", route);
}
