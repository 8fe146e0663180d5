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
import type { AppContext } from "../../core/context.ts";
import { readyService } from "../../edge/readiness.ts";
import { openScope, type CallScope } from "../../edge/scope.ts";
import type { FieldNaming } from "../../errors/fields.ts";
import { AppError, toAppError } from "../../errors/taxonomy.ts";
import type { DoorConnection, DoorSocket, Upgrade } from "../../http/ws-route.ts";
import { errorStatusBody, webSocketRoutes } from "../../http/ws-route.ts";
import { parseSpeech } from "../schema.ts";

/** Largest text frame a client may send (JSON with up to 51,200 code points of input). */
export const WS_MAX_MESSAGE_BYTES = 512 * 1024;

/** A WebSocket message names its fields as sent (`sample_rate`); the whole message is `message`. */
const MESSAGE_FIELDS: FieldNaming = { root: "message" };

/** One socket: one synthesis at a time, all aborted when the socket closes. */
class TtsConnection implements DoorConnection {
  private busy = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly ctx: AppContext,
    private readonly socket: DoorSocket,
    private readonly upgrade: Upgrade,
  ) {}

  async receive(message: unknown): Promise<void> {
    if (this.busy) {
      this.socket.sendError(new AppError("bad_request", "One request at a time: wait for the end message"));
      return;
    }
    this.busy = true;
    const scope = openScope(this.ctx, {
      event: "ws",
      method: "tts.ws",
      requestId: this.upgrade.requestId,
      parent: this.abort.signal,
    });
    try {
      await this.synthesize(scope, message);
      scope.finish("200");
    } catch (error) {
      if (this.abort.signal.aborted) scope.finish("499");
      else {
        scope.finish(String(toAppError(error).status), error);
        this.socket.sendError(error);
      }
    } finally {
      this.busy = false;
    }
  }

  abandon(): void {
    this.abort.abort(new Error("client closed the WebSocket"));
  }

  private async synthesize(scope: CallScope, message: unknown): Promise<void> {
    scope.admit(this.upgrade.key);
    const fields = typeof message === "object" && message !== null ? { response_format: "pcm", ...message } : message;
    const speech = parseSpeech(fields, { naming: MESSAGE_FIELDS }, this.ctx.config);
    const stream = await readyService(this.ctx, "tts").synthesizeEncodedStream(speech, scope.options);
    this.socket.sendJson({
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
      this.socket.send(part);
    }
    this.socket.sendJson({ type: "end", bytes });
  }
}

/** The TTS WebSocket plugin. */
export function ttsWebSocketRoutes(ctx: AppContext) {
  return webSocketRoutes(ctx, {
    name: "tts-ws",
    paths: ["/v1/tts/ws"],
    maxPayloadLength: WS_MAX_MESSAGE_BYTES,
    idleTimeout: 120,
    // The REST error body with its status; a 429/503 also says when to try again.
    errorEvent: (error) => ({
      type: "error",
      ...errorStatusBody(error),
      ...(error.retryAfter !== undefined ? { retry_after: error.retryAfter } : {}),
    }),
    connect: (socket, upgrade) => new TtsConnection(ctx, socket, upgrade),
  });
}
