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
 * transcription carries `dialect`, `start`, `end` as extra fields (a final with redaction also
 * `redactions`); errors carry `sawt` (the REST error body); the start message may carry `itn`
 * (default true) and `redact` ("pci,pii"), applied with the server's asr.redact by the live
 * session. Utterances end by server VAD with OpenAI's defaults.
 */
import type { LiveAudioFormat } from "../../audio/live-input.ts";
import { liveFormatProblem } from "../../audio/live-input.ts";
import { DEFAULT_TURN_DETECTION, type LiveEvent } from "../../core/asr.ts";
import type { AppContext } from "../../core/context.ts";
import { openLiveSession, type LiveSession } from "../live/session.ts";
import { formattingRequest, itnField } from "../format/request.ts";
import { AppError } from "../../errors/taxonomy.ts";
import type { DoorConnection, DoorSocket, Upgrade } from "../../http/ws-route.ts";
import { errorStatusBody, webSocketRoutes } from "../../http/ws-route.ts";

/** Largest frame jambonz may send (its audio frames are small; a start message is tiny). */
export const JAMBONZ_MAX_MESSAGE_BYTES = 1024 * 1024;
/** The encodings a start message may name and what they are. */
const ENCODINGS: Readonly<Record<string, LiveAudioFormat["encoding"]>> = {
  LINEAR16: "pcm_s16le",
  MULAW: "pcm_mulaw",
  ALAW: "pcm_alaw",
};

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

/** One jambonz call: a start message, audio, a stop; the session closes the socket at its end. */
class JambonzConnection implements DoorConnection {
  private session?: LiveSession;
  private interim = false;
  private language = "ar";
  private stopped = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly socket: DoorSocket,
    private readonly upgrade: Upgrade,
  ) {}

  receive(message: unknown): void {
    if (this.stopped) return;
    const session = this.session;
    if (message instanceof Uint8Array) {
      if (!session) {
        this.socket.sendError(new AppError("bad_request", "Expected a start message before audio"));
        this.socket.close(1008, "start expected");
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
        this.start(control);
        return;
      }
      if (control?.type === "stop") {
        this.stopped = true;
        session.finish();
        return;
      }
      session.touch();
      throw new AppError(
        "bad_request",
        control?.type === "start" ? "start was already received" : "Unknown control message: expected stop",
      );
    } catch (error) {
      const appError = this.socket.sendError(error);
      // A session that never started cannot continue: close as jambonz expects of a vendor error.
      if (!this.session) this.socket.closeFor(appError, "");
    }
  }

  abandon(): void {
    this.session?.abandon();
  }

  private start(message: Record<string, unknown>): void {
    const format = startFormat(message);
    const formatting = formattingRequest(
      { itn: itnField(message.itn, "start.itn"), redact: message.redact },
      "start.redact",
    );
    this.interim = message.interimResults === true;
    this.language = typeof message.language === "string" ? message.language : "ar";
    const session = openLiveSession(
      this.ctx,
      {
        door: "jambonz",
        requestId: this.upgrade.requestId,
        caller: { key: this.upgrade.key },
        onEvent: (event) => this.forward(event),
        onEnd: (error) => {
          if (error) this.socket.sendError(error);
          this.socket.closeFor(error, "stopped");
        },
      },
      format,
    );
    this.session = session;
    // jambonz sends BCP-47 tags (ar-SA, en-US): their language routes the call (../languages.ts);
    // another language, or none, takes the default recogniser.
    const spoken = /^(ar|en)(?:-|$)/i.exec(this.language)?.[1]?.toLowerCase() as "ar" | "en" | undefined;
    session.configure(
      {
        turnDetection: DEFAULT_TURN_DETECTION,
        partialIntervalMs: this.ctx.config.streaming.partial_interval_ms,
        ...(spoken ? { language: spoken } : {}),
        formatting,
      },
      format,
    );
  }

  private forward(event: LiveEvent): void {
    if (event.type !== "partial" && event.type !== "final") return;
    const isFinal = event.type === "final";
    if (!isFinal && !this.interim) return;
    if (isFinal && event.text === "") return;
    this.socket.sendJson({
      type: "transcription",
      is_final: isFinal,
      alternatives: [{ transcript: event.text, confidence: 1 }],
      channel: 1,
      language: this.language,
      dialect: isFinal ? event.dialect : undefined,
      start: event.start,
      end: event.end,
      ...(isFinal && event.redactions ? { redactions: event.redactions } : {}),
    });
  }
}

/** jambonz's error event: it reads `error` as a string; `sawt` carries the REST body. */
function jambonzErrorEvent(error: AppError): Record<string, unknown> {
  const said = error.kind === "validation" ? `${error.fields[0]?.field}: ${error.fields[0]?.message}` : error.detail;
  return { type: "error", error: said, sawt: errorStatusBody(error) };
}

/** The jambonz STT WebSocket plugin (calls last up to jambonz's own 15 minutes, hence the idle bound). */
export function jambonzRoutes(ctx: AppContext) {
  return webSocketRoutes(ctx, {
    name: "asr-jambonz",
    paths: ["/v1/asr/jambonz"],
    errorEvent: jambonzErrorEvent,
    connect: (socket, upgrade) => new JambonzConnection(ctx, socket, upgrade),
    maxPayloadLength: JAMBONZ_MAX_MESSAGE_BYTES,
    idleTimeout: 960,
  });
}
