/**
 * TTS over WebSocket (spec: "a WebSocket interface for TTS exists and accepts the dialect
 * parameter"), at GET /v1/tts/ws. The key is checked at the upgrade (X-API-Key or Bearer, as REST).
 *
 * Today's one-request message, one at a time per socket:
 *
 *   client → {"input": "…", "voice"?, "dialect"?, "response_format"? (default pcm), "speed"?, "sample_rate"?, "encoding"?}
 *   server → {"type":"start","voice","dialect","engine","fallback"?,"format","content_type","sample_rate"}
 *   server → binary audio, sentence by sentence as it is synthesised (pcm: s16le mono)
 *   server → {"type":"end","bytes":N}
 *   server → {"type":"error","status","error","detail","code"?} — the REST error body, plus status
 *
 * Streaming text in (issue 40), for text an LLM writes a few words at a time, in named contexts
 * (`context` defaults to "default"; at most `tts.stream_max_contexts` open at once):
 *
 *   client → {"type":"text","text","context"?,"flush"?, …speech settings on the context's first text}
 *   client → {"type":"flush","context"?} | {"type":"clear","context"?} | {"type":"close","context"?}
 *   server → {"type":"start","context",…} when a context opens (the voice that speaks, the format)
 *   server → binary audio; a context other than "default" announces each frame with
 *            {"type":"audio","context","bytes","audio_ms"}
 *   server → {"type":"mark","name","context","audio_ms"} once the audio before an SSML <mark> is sent
 *   server → {"type":"flushed","context"}, {"type":"cleared","context","audio_ms_sent","samples_sent"}
 *   server → {"type":"end","context","bytes"} when a closed context has spoken everything
 *   server → the error event with "context" when it concerns one
 *
 * The speech stream (src/tts/stream/, through the TTS service) counts one request of the key's
 * rate limit per context, applies its lexicon and the limits; closing the socket stops everything.
 */
import type { AppContext } from "../../core/context.ts";
import { errorStatusBody, webSocketRoutes } from "../../http/ws-route.ts";
import { ContextError, TtsConnection } from "./connection.ts";

/** Largest text frame a client may send (JSON with up to 51,200 code points of input). */
export const WS_MAX_MESSAGE_BYTES = 512 * 1024;

/** The TTS WebSocket plugin. */
export function ttsWebSocketRoutes(ctx: AppContext) {
  return webSocketRoutes(ctx, {
    name: "tts-ws",
    paths: ["/v1/tts/ws"],
    maxPayloadLength: WS_MAX_MESSAGE_BYTES,
    // Bun's own limit, above the speech stream's idle time (tts.stream_idle_s), which closes with a reason.
    idleTimeout: 960,
    // The REST error body with its status; a 429/503 also says when to try again.
    errorEvent: (error) => ({
      type: "error",
      ...(error instanceof ContextError ? { context: error.context } : {}),
      ...errorStatusBody(error),
      ...(error.retryAfter !== undefined ? { retry_after: error.retryAfter } : {}),
    }),
    connect: (socket, upgrade) => new TtsConnection(ctx, socket, upgrade),
  });
}
