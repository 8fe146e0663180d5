/**
 * One Deepgram live transcription (`GET /v1/listen` over WebSocket) on the live core
 * (src/asr/live/session.ts): binary frames of raw audio in, `KeepAlive`, `Finalize` and
 * `CloseStream` text messages; `Results` (interim and final), `SpeechStarted` (vad_events),
 * `UtteranceEnd` (utterance_end_ms) and, at the end, `Metadata` out (./wire.ts). The door passes
 * only what its query asked (./params.ts: its own keywords, redaction and written forms); the live
 * core adds the key's phrase list and the server's redaction floor, and counts missing audio as
 * silence on the wall clock, so endpointing and UtteranceEnd come on time when a client stops
 * sending (LiveKit's plugin does a second after the last loud frame).
 *
 * Ends: `CloseStream` (or an empty binary frame, Deepgram's older close) finishes the stream:
 * every final, then `Metadata`, then close 1000. A failure, a limit (idle, buffer, session) or a
 * frame that breaks the protocol (text that is not a control message, an unknown type, audio after
 * CloseStream, a frame over {@link MAX_FRAME_BYTES}) gets an `Error` message and a close frame with
 * Deepgram's code and payload (./wire.ts `closeFrame`).
 */
import { createHash } from "node:crypto";
import { DEFAULT_TURN_DETECTION, type LiveEvent, type LiveTranscriptionOptions } from "../../core/asr.ts";
import type { AppContext } from "../../core/context.ts";
import { AppError, toAppError } from "../../errors/taxonomy.ts";
import type { DoorConnection, DoorSocket, Upgrade } from "../../http/ws-route.ts";
import { openLiveSession, type LiveSession } from "../live/session.ts";
import type { ListenParams } from "./params.ts";
import {
  closeFrame,
  errorMessage,
  requestMetadata,
  resultsMessage,
  resultWords,
  speechStartedMessage,
  utteranceEndMessage,
} from "./wire.ts";

/** Largest audio frame taken (a second of 48 kHz four-channel linear16 is 384 KB). */
export const MAX_FRAME_BYTES = 1024 * 1024;

/** The control messages a client may send. */
const CONTROL = new Set(["KeepAlive", "Finalize", "CloseStream"]);

/** The live options of a request (only what its query asked; the session adds the key's policy). */
export function liveOptions(ctx: AppContext, params: ListenParams): LiveTranscriptionOptions {
  return {
    // endpointing=false: no speech_final, so utterances are the file rule's (finals = a file's segments).
    ...(params.endpointing === false
      ? { endpointing: "segments", turnDetection: null }
      : { turnDetection: { ...DEFAULT_TURN_DETECTION, silenceDurationMs: params.endpointing } }),
    partialIntervalMs: params.interimResults ? ctx.config.streaming.partial_interval_ms : 0,
    ...(params.language ? { language: params.language } : {}),
    ...(params.hotwords.length > 0 ? { hotwords: params.hotwords } : {}),
    ...(params.utteranceEndMs !== undefined ? { utteranceEndMs: params.utteranceEndMs } : {}),
    formatting: params.formatting,
  };
}

/** See the file comment. */
export class DeepgramConnection implements DoorConnection {
  private readonly session: LiveSession;
  /** Streams the results name (`channel_index`): each channel apart, or one. */
  private readonly streams: number;
  private readonly audioHash = createHash("sha256");
  private readonly created = new Date();
  private bytes = 0;
  /** CloseStream came: the stream is finishing. */
  private closing = false;
  /** The socket is closed or closing: nothing more is sent. */
  private done = false;
  /** Inside a Finalize's commit: its finals are `from_finalize`. */
  private finalizing = 0;

  constructor(
    ctx: AppContext,
    private readonly socket: DoorSocket,
    private readonly upgrade: Upgrade,
    private readonly params: ListenParams,
  ) {
    this.streams = params.multichannel ? params.channels : 1;
    const format = { ...params.format!, channels: params.channels, mix: !params.multichannel };
    this.session = openLiveSession(
      ctx,
      {
        door: "deepgram",
        requestId: upgrade.requestId,
        caller: { key: upgrade.key },
        onEvent: (event) => this.forward(event),
        onEnd: (error) => this.end(error),
      },
      format,
    );
    try {
      this.session.configure(liveOptions(ctx, params), format);
    } catch (error) {
      // Refused with the key's policy (its phrase list and the query's over the bound): the
      // session, opened already, ends now, so its slot is not held until the idle limit.
      this.session.refuse(toAppError(error));
    }
  }

  receive(message: unknown): void {
    if (this.done) return;
    if (message instanceof Uint8Array) {
      this.audio(message);
      return;
    }
    const type =
      typeof message === "object" && message !== null && !Array.isArray(message)
        ? (message as Record<string, unknown>).type
        : undefined;
    if (typeof type !== "string" || !CONTROL.has(type)) {
      const shown = typeof type === "string" ? `'${type.slice(0, 40)}'` : "none";
      this.refuse(`Unknown message type ${shown}: text frames are KeepAlive, Finalize or CloseStream; audio is binary`);
      return;
    }
    this.session.touch();
    if (type === "CloseStream") this.closeStream();
    // After CloseStream the stream is finishing anyway: a late Finalize has nothing left to do.
    else if (type === "Finalize" && !this.closing)
      this.session.commit(() => {}, { begin: () => this.finalizing++, end: () => this.finalizing-- });
  }

  abandon(): void {
    this.done = true;
    this.session.abandon();
  }

  private audio(bytes: Uint8Array): void {
    // A zero-length frame is how Deepgram's older clients close the stream.
    if (bytes.length === 0) return this.closeStream();
    if (this.closing) return this.refuse("Audio after CloseStream: the stream is finishing");
    if (bytes.length > MAX_FRAME_BYTES)
      return this.refuse(
        `An audio frame over ${MAX_FRAME_BYTES} bytes: send audio in smaller frames`,
        "payload_too_large",
      );
    this.bytes += bytes.length;
    this.audioHash.update(bytes);
    void this.session.audio(bytes);
  }

  private closeStream(): void {
    if (this.closing) return;
    this.closing = true;
    void this.session.finish();
  }

  private refuse(detail: string, kind: "bad_request" | "payload_too_large" = "bad_request"): void {
    this.session.refuse(new AppError(kind, detail));
  }

  private forward(event: LiveEvent): void {
    if (this.done || event.type === "error") return;
    const channel = event.channel ?? 0;
    switch (event.type) {
      case "speech_started":
        if (this.params.vadEvents)
          this.socket.sendJson(speechStartedMessage(channel, this.streams, event.audioStartMs / 1000));
        return;
      case "utterance_end":
        this.socket.sendJson(utteranceEndMessage(channel, this.streams, event.lastWordEnd));
        return;
      case "partial":
      case "final": {
        const isFinal = event.type === "final";
        if (!isFinal && (!this.params.interimResults || event.text === "")) return;
        const fromFinalize = isFinal && this.finalizing > 0;
        const confidence = isFinal ? (event.confidence ?? 1) : 1;
        const words = resultWords(event.text, event.start, event.end, {
          ...(isFinal && event.words ? { timed: event.words } : {}),
          confidence,
          ...(this.params.diarize ? { speaker: channel } : {}),
        });
        this.socket.sendJson(
          resultsMessage(this.facts, {
            channel,
            channels: this.streams,
            start: event.start,
            end: event.end,
            isFinal,
            // An utterance the endpointer ended (or the stream's end) is speech_final; a Finalize's is not.
            speechFinal: isFinal && !fromFinalize && this.params.endpointing !== false,
            fromFinalize,
            transcript: event.text,
            confidence,
            words,
          }),
        );
      }
    }
  }

  private get facts() {
    return { requestId: this.upgrade.requestId, model: this.params.model };
  }

  /** The session ended: Metadata and a normal close, or the error and Deepgram's close frame. */
  private end(error: AppError | undefined): void {
    if (this.done) return;
    this.done = true;
    if (error) this.socket.sendJson(errorMessage(error));
    else {
      const format = this.params.format!;
      const perSecond = format.sampleRate * (format.encoding === "pcm_s16le" ? 2 : 1) * this.params.channels;
      this.socket.sendJson({
        type: "Metadata",
        ...requestMetadata(this.facts, {
          sha256: this.audioHash.digest("hex"),
          created: this.created,
          duration: this.bytes / perSecond,
          channels: this.params.channels,
        }),
      });
    }
    const frame = closeFrame(error);
    this.socket.close(frame.code, frame.reason);
  }
}
