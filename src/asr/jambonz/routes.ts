/**
 * jambonz's custom speech-vendor STT API (docs.jambonz.org "Adding custom speech vendors"), at
 * `GET /v1/asr/jambonz`: jambonz opens the WebSocket with `Authorization: Bearer <apiKey>` (the
 * key entered for the custom vendor), sends a `start` text frame (`language`, `format` "raw",
 * `encoding` "LINEAR16", `sampleRateHz`, `interimResults`, …), binary frames of audio, and a
 * `stop` frame; Sawt answers `{"type":"transcription","is_final",alternatives:[{transcript,
 * confidence}],"channel","language"}` per result and `{"type":"error","error":"…"}` on failure,
 * and closes the socket itself after the final results that follow `stop`, as the API requires.
 *
 * Sawt extensions: `encoding` may also be "MULAW" or "ALAW" (8 kHz telephony); each
 * transcription carries `dialect`, `start`, `end` as extra fields; errors carry `sawt` (the REST
 * error body). Utterances end by server VAD with OpenAI's defaults.
 */
import { DEFAULT_TURN_DETECTION } from "../../core/asr.ts";
import { Elysia } from "elysia";
import type { LiveAudioFormat } from "../../audio/live-input.ts";
import { liveFormatProblem } from "../../audio/live-input.ts";
import type { LiveEvent } from "../../core/asr.ts";
import type { AppContext } from "../../core/context.ts";
import { presentedKey, verify } from "../../edge/auth.ts";
import { errorBody } from "../../edge/error-body.ts";
import { closeCodeFor } from "../../http/ws-close.ts";
import { openLiveSession, type LiveSession } from "../live/session.ts";
import { requestIdFrom } from "../../edge/request-id.ts";
import { AppError, toAppError } from "../../errors/taxonomy.ts";
import type { ApiKeyRecord } from "../../store/keys.ts";

/** Largest frame jambonz may send (its audio frames are small; a start message is tiny). */
export const JAMBONZ_MAX_MESSAGE_BYTES = 1024 * 1024;
/** The encodings a start message may name and what they are. */
const ENCODINGS: Readonly<Record<string, LiveAudioFormat["encoding"]>> = {
  LINEAR16: "pcm_s16le",
  MULAW: "pcm_mulaw",
  ALAW: "pcm_alaw",
};

interface Socket {
  readonly id: string;
  send(data: string): unknown;
  close(code?: number, reason?: string): unknown;
}

interface Connection {
  key: ApiKeyRecord;
  requestId: string;
  session?: LiveSession;
  interim: boolean;
  language: string;
  stopped: boolean;
}

function sendError(ws: Socket, thrown: unknown): AppError {
  const error = toAppError(thrown);
  ws.send(
    JSON.stringify({
      type: "error",
      error: error.kind === "validation" ? `${error.fields[0]?.field}: ${error.fields[0]?.message}` : error.detail,
      sawt: { status: error.status, ...errorBody(error) },
    }),
  );
  return error;
}

/** The audio format a start message describes, or the AppError naming what is wrong. */
function startFormat(message: Record<string, unknown>): LiveAudioFormat {
  const encodingName = message.encoding ?? "LINEAR16";
  const encoding = typeof encodingName === "string" ? ENCODINGS[encodingName.toUpperCase()] : undefined;
  if (!encoding) throw new AppError("bad_request", "start: encoding must be LINEAR16 (or MULAW, ALAW)");
  if (message.format !== undefined && message.format !== "raw")
    throw new AppError("bad_request", 'start: format must be "raw"');
  const rate = message.sampleRateHz ?? 8000;
  const format = { encoding, sampleRate: typeof rate === "number" ? rate : NaN };
  const problem = liveFormatProblem(format);
  if (problem) throw new AppError("bad_request", `start: sampleRateHz: ${problem}`);
  return format;
}

/** The jambonz STT WebSocket plugin. */
export function jambonzRoutes(ctx: AppContext) {
  const connections = new Map<string, Connection>();
  const upgraded = new WeakMap<Request, { key: ApiKeyRecord; requestId: string }>();

  function start(ws: Socket, connection: Connection, message: Record<string, unknown>): void {
    const format = startFormat(message);
    connection.interim = message.interimResults === true;
    connection.language = typeof message.language === "string" ? message.language : "ar";
    const session = openLiveSession(
      ctx,
      {
        door: "jambonz",
        requestId: connection.requestId,
        caller: { key: connection.key },
        onEvent: (event) => forward(ws, connection, event),
        onEnd: (error) => {
          if (error) sendError(ws, error);
          ws.close(closeCodeFor(error), error ? error.detail.slice(0, 120) : "stopped");
        },
      },
      format,
    );
    connection.session = session;
    session.configure(
      { turnDetection: DEFAULT_TURN_DETECTION, partialIntervalMs: ctx.config.streaming.partial_interval_ms },
      format,
    );
  }

  function forward(ws: Socket, connection: Connection, event: LiveEvent): void {
    if (event.type !== "partial" && event.type !== "final") return;
    const isFinal = event.type === "final";
    if (!isFinal && !connection.interim) return;
    if (isFinal && event.text === "") return;
    ws.send(
      JSON.stringify({
        type: "transcription",
        is_final: isFinal,
        alternatives: [{ transcript: event.text, confidence: 1 }],
        channel: 1,
        language: connection.language,
        dialect: isFinal ? event.dialect : undefined,
        start: event.start,
        end: event.end,
      }),
    );
  }

  return new Elysia({ name: "asr-jambonz" }).ws("/v1/asr/jambonz", {
    maxPayloadLength: JAMBONZ_MAX_MESSAGE_BYTES,
    idleTimeout: 960,
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
      connections.set(ws.id, { ...verified, interim: false, language: "ar", stopped: false });
    },
    message(ws, message) {
      const connection = connections.get(ws.id);
      if (!connection || connection.stopped) return;
      const session = connection.session;
      if (message instanceof Uint8Array) {
        if (!session) {
          sendError(ws, new AppError("bad_request", "Expected a start message before audio"));
          ws.close(1008, "start expected");
          return;
        }
        session.audio(message);
        return;
      }
      const control =
        typeof message === "object" && message !== null && !Array.isArray(message)
          ? (message as Record<string, unknown>)
          : null;
      try {
        if (!session) {
          if (control?.type !== "start") throw new AppError("bad_request", "Expected a start message first");
          start(ws, connection, control);
          return;
        }
        if (control?.type === "stop") {
          connection.stopped = true;
          session.finish();
          return;
        }
        session.touch();
        throw new AppError(
          "bad_request",
          control?.type === "start" ? "start was already received" : "Unknown control message: expected stop",
        );
      } catch (error) {
        const appError = sendError(ws, error);
        // A session that never started cannot continue: close as jambonz expects of a vendor error.
        if (!connection.session) ws.close(closeCodeFor(appError), appError.detail.slice(0, 120));
      }
    },
    close(ws) {
      connections.get(ws.id)?.session?.abandon();
      connections.delete(ws.id);
    },
  });
}
