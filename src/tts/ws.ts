/**
 * TTS over WebSocket (spec: "a WebSocket interface for TTS exists and accepts the dialect
 * parameter"), at GET /v1/tts/ws. The key is checked at the upgrade (X-API-Key or Bearer, as REST).
 * Protocol, one request at a time per connection:
 *
 *   client → text  {"input": "…", "voice"?, "dialect"?, "response_format"? (default pcm), "speed"?, "sample_rate"?}
 *   server → text  {"type":"start","voice","dialect","engine","fallback"?,"format","content_type","sample_rate"}
 *   server → binary audio, sentence by sentence as it is synthesised (pcm: s16le mono)
 *   server → text  {"type":"end","bytes":N}
 *   server → text  {"type":"error","status","error","detail","code"?} — the REST error body, plus status
 *
 * Each synthesis counts against the key's rate limit (as a REST request would) and is one call
 * of the edge (src/edge): its own scope, the same readiness gate as REST and gRPC, one log line.
 * Closing the socket aborts the synthesis in progress; queued work for it never runs.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../core/context.ts";
import { presentedKey, verify } from "../edge/auth.ts";
import { errorBody } from "../edge/error-body.ts";
import { readyService } from "../edge/readiness.ts";
import { requestIdFrom } from "../edge/request-id.ts";
import { openScope, type CallScope } from "../edge/scope.ts";
import type { FieldNaming } from "../errors/fields.ts";
import { AppError, toAppError } from "../errors/taxonomy.ts";
import type { ApiKeyRecord } from "../store/keys.ts";
import { parseSpeech } from "./schema.ts";

/** Largest text frame a client may send (JSON with up to 51,200 code points of input). */
export const WS_MAX_MESSAGE_BYTES = 512 * 1024;

interface Connection {
  key: ApiKeyRecord;
  /** The upgrade request's id (its X-Request-ID); each synthesis logs under it. */
  requestId: string;
  busy: boolean;
  abort: AbortController;
}

interface SocketLike {
  readonly id: string;
  send(data: string | Uint8Array): unknown;
}

function sendJson(ws: SocketLike, body: Record<string, unknown>): void {
  ws.send(JSON.stringify(body));
}

function sendError(ws: SocketLike, thrown: unknown): void {
  const error = toAppError(thrown);
  sendJson(ws, {
    type: "error",
    status: error.status,
    ...errorBody(error),
    ...(error.retryAfter !== undefined ? { retry_after: error.retryAfter } : {}),
  });
}

/** A WebSocket message names its fields as sent (`sample_rate`); the whole message is `message`. */
const MESSAGE_FIELDS: FieldNaming = { root: "message" };

async function synthesizeOver(
  ctx: AppContext,
  ws: SocketLike,
  scope: CallScope,
  connection: Connection,
  message: unknown,
): Promise<void> {
  scope.admit(connection.key);
  const fields = typeof message === "object" && message !== null ? { response_format: "pcm", ...message } : message;
  const speech = parseSpeech(fields, { naming: MESSAGE_FIELDS }, ctx.config);
  const stream = await readyService(ctx, "tts").synthesizeEncodedStream(speech, scope.options);
  sendJson(ws, {
    type: "start",
    voice: stream.voice,
    dialect: stream.dialect,
    engine: stream.engine,
    ...(stream.fallback ? { fallback: stream.fallback } : {}),
    ...(stream.voices ? { voices: stream.voices } : {}),
    format: stream.format,
    content_type: stream.contentType,
    sample_rate: stream.sampleRate,
  });
  let bytes = 0;
  for await (const part of stream.audio) {
    bytes += part.byteLength;
    // Elysia's send JSON-encodes any object that is not a Buffer, a Uint8Array included.
    ws.send(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
  }
  sendJson(ws, { type: "end", bytes });
}

/** The TTS WebSocket plugin. */
export function ttsWebSocketRoutes(ctx: AppContext) {
  const connections = new Map<string, Connection>();
  // The key verified at the upgrade and its request id, handed to `open` (one verification per connection).
  const upgraded = new WeakMap<Request, { key: ApiKeyRecord; requestId: string }>();
  return new Elysia({ name: "tts-ws" }).ws("/v1/tts/ws", {
    maxPayloadLength: WS_MAX_MESSAGE_BYTES,
    idleTimeout: 120,
    // The handshake (src/http/ws-guard.ts, run by the app for every WS path) and the key are checked before the upgrade: a refused
    // client gets the REST 400 or 401 response.
    beforeHandle({ request, set }) {
      const key = verify(ctx, presentedKey(request.headers));
      const sent = set.headers["x-request-id"];
      upgraded.set(request, { key, requestId: typeof sent === "string" ? sent : requestIdFrom(request.headers) });
    },
    open(ws) {
      const verified = upgraded.get(ws.data.request);
      if (!verified) {
        ws.close(1008, "unauthorized");
        return;
      }
      connections.set(ws.id, { ...verified, busy: false, abort: new AbortController() });
    },
    async message(ws, message) {
      const connection = connections.get(ws.id);
      if (!connection) return;
      if (connection.busy) {
        sendError(ws, new AppError("bad_request", "One request at a time: wait for the end message"));
        return;
      }
      connection.busy = true;
      const scope = openScope(ctx, {
        event: "ws",
        method: "tts.ws",
        requestId: connection.requestId,
        parent: connection.abort.signal,
      });
      try {
        await synthesizeOver(ctx, ws, scope, connection, message);
        scope.finish("200");
      } catch (error) {
        if (connection.abort.signal.aborted) scope.finish("499");
        else {
          scope.finish(String(toAppError(error).status), error);
          sendError(ws, error);
        }
      } finally {
        connection.busy = false;
      }
    },
    close(ws) {
      const connection = connections.get(ws.id);
      connection?.abort.abort(new Error("client closed the WebSocket"));
      connections.delete(ws.id);
    },
  });
}
