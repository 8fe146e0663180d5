/**
 * The chan_websocket door's route (issue 41): WebSocket `/v1/calls/asterisk` on the HTTP port,
 * which an Asterisk `websocket_client.conf` connection (`uri = ws://<sawt>:8080/v1/calls/asterisk`,
 * `protocols = media`, `connection_type = per_call_config`) dials for every
 * `Dial(WebSocket/<connection>/…)`. Asterisk presents no API key: the peer's address must be in
 * `calls.allowed_networks` (403 before the upgrade otherwise), and the call maps to a key by
 * `calls.peers` or its `SAWT_KEY_ID`. The subprotocol `media` is echoed when asked for; the
 * door's connections are capped (503 beyond, before the upgrade). The `connection_id` names the
 * configured connection and is the same for every call: the call's id is its `channel_id`.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../../core/context.ts";
import { AppError } from "../../errors/taxonomy.ts";
import type { ConnectionGuard } from "../../edge/connection-guard.ts";
import { callDoorGuard } from "../connections.ts";
import { KEY_ID_VARIABLE } from "../peers.ts";
import type { CallService } from "../service.ts";
import { AsteriskConnection, MAX_MESSAGE_BYTES } from "./connection.ts";

/** The path Asterisk's websocket_client connection names. */
export const ASTERISK_PATH = "/v1/calls/asterisk";

interface Peer {
  readonly address: string;
  readonly keyId: string | undefined;
}

/** The chan_websocket plugin; `calls` gives the process's call service (503 when calls are off). */
export function asteriskRoutes(ctx: AppContext, calls: () => CallService) {
  let guard: ConnectionGuard | undefined;
  const connections = new Map<string, AsteriskConnection>();
  return new Elysia({ name: "calls-asterisk" })
    .resolve(({ request, server }): { peer: Peer } => {
      const service = calls();
      guard ??= callDoorGuard(ctx, "chan_websocket");
      const address = (server?.requestIP(request)?.address ?? "").replace(/^::ffff:/, "");
      if (!service.peers.allowed(address)) {
        guard.refused("network");
        throw new AppError("forbidden", "This network may not bring calls (calls.allowed_networks)");
      }
      if (!guard.hasRoom())
        throw new AppError("unavailable", "Too many chan_websocket connections (calls.max_connections)", {
          retryAfter: 5,
        });
      const keyId = new URL(request.url).searchParams.get(KEY_ID_VARIABLE) ?? undefined;
      return { peer: { address, keyId } };
    })
    .ws(ASTERISK_PATH, {
      maxPayloadLength: MAX_MESSAGE_BYTES,
      idleTimeout: 960,
      upgrade: ({ request }: { request: Request }) => {
        const asked = request.headers.get("sec-websocket-protocol") ?? "";
        const media = asked.split(",").some((p) => p.trim() === "media");
        return media ? { headers: { "sec-websocket-protocol": "media" } } : {};
      },
      open(ws) {
        const { peer } = ws.data as unknown as { peer: Peer };
        const connection = new AsteriskConnection(
          ctx,
          calls(),
          guard!,
          {
            sendText: (text) => void ws.send(text),
            sendBinary: (bytes) => void ws.send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)),
            close: (code, reason) => void ws.close(code, reason),
          },
          peer.address,
          peer.keyId,
        );
        connections.set(ws.id, connection);
      },
      message(ws, message) {
        connections.get(ws.id)?.receive(message);
      },
      close(ws) {
        connections.get(ws.id)?.abandon();
        connections.delete(ws.id);
      },
    });
}
