/**
 * Deepgram's TTS WebSocket (`/v1/speak`) over one speech-stream context: `Speak` {text} adds text
 * (spoken sentence by sentence as it completes), `Flush` speaks what is pending and answers
 * `Flushed` {sequence_id} after its audio, `Clear` stops the audio at once and answers `Cleared`
 * {sequence_id}, `Close` closes the socket (1000) once the flushes before it are answered. Audio is binary frames in the query's
 * encoding; `Metadata` (the voice that speaks as `model_name`) opens the socket; `Warning` answers a
 * message Sawt ignores. Errors close the socket as ./errors.ts says.
 */
import { createHash } from "node:crypto";
import type { AppContext } from "../../core/context.ts";
import type { SpeechStream, SpeechStreamEvent } from "../../core/tts.ts";
import { readyService } from "../../edge/readiness.ts";
import { AppError, toAppError } from "../../errors/taxonomy.ts";
import type { DoorConnection, DoorSocket, Upgrade } from "../../http/ws-route.ts";
import { VERSION } from "../../version.ts";
import { deepgramCloseFrame, deepgramErrorMessage, type DeepgramFault } from "../../http/deepgram.ts";
import { isTextLimitError } from "../schema.ts";
import { parseSpeakQuery } from "./params.ts";

/** The socket's one context. */
const CONTEXT = "speak";

/** A stable id for the voice that speaks, in the UUID form Deepgram's `model_uuid` has. */
function modelUuid(voice: string, engine: string): string {
  const hex = createHash("sha1").update(`sawt/${voice}/${engine}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** One Deepgram TTS socket. */
export class DeepgramSpeakConnection implements DoorConnection {
  private stream: SpeechStream | undefined;
  /** Sequence ids of flushes whose `Flushed` is still to come, oldest first. */
  private readonly pendingFlushes: number[] = [];
  private flushes = 0;
  /** Close came while flushes were pending: the socket closes after their Flushed. */
  private closing = false;
  private closed = false;

  constructor(
    ctx: AppContext,
    private readonly socket: DoorSocket,
    private readonly upgrade: Upgrade,
  ) {
    // What fails here (the engine not ready, the voice refused, the key's limit) closes the socket
    // in Deepgram's way, as any later error does.
    try {
      const query = parseSpeakQuery(new URL(upgrade.request.url).searchParams, ctx.config);
      this.stream = readyService(ctx, "tts").openSpeechStream({
        key: upgrade.key,
        requestId: upgrade.requestId,
        door: "deepgram",
        onEvent: (event) => this.event(event),
        onEnd: (error) => this.fail(error),
      });
      const info = this.stream.open(CONTEXT, query.settings);
      socket.sendJson({
        type: "Metadata",
        request_id: upgrade.requestId,
        model_name: info.voice,
        model_version: VERSION,
        model_uuid: modelUuid(info.voice, info.engine),
      });
    } catch (error) {
      this.fail(toAppError(error));
    }
  }

  /** The socket's speech stream (there is one once the constructor succeeded). */
  private get speech(): SpeechStream {
    if (!this.stream) throw new AppError("internal", "The speech stream is not open");
    return this.stream;
  }

  receive(frame: unknown): void {
    if (this.closed || this.closing) return;
    try {
      if (frame instanceof Uint8Array || frame instanceof ArrayBuffer) {
        const error = new AppError("bad_request", "Binary frames are not part of this protocol: send Speak messages");
        return this.fail(error, "message");
      }
      if (typeof frame !== "object" || frame === null || Array.isArray(frame))
        return this.fail(new AppError("bad_request", "The message could not be decoded: send JSON messages"));
      this.message(frame as Record<string, unknown>);
    } catch (thrown) {
      const error = toAppError(thrown);
      this.fail(error, isTextLimitError(error) ? "big" : "data");
    }
  }

  abandon(): void {
    this.closed = true;
    this.stream?.end();
  }

  private message(message: Record<string, unknown>): void {
    switch (message.type) {
      case "Speak": {
        if (typeof message.text !== "string") throw new AppError("bad_request", "Speak needs a text string");
        if (message.text === "") this.warn("EMPTY_TEXT", "A Speak message with empty text was ignored");
        else this.speech.text(CONTEXT, message.text);
        return;
      }
      case "Flush":
        this.pendingFlushes.push(this.flushes++);
        this.speech.flush(CONTEXT);
        return;
      case "Clear":
        this.speech.clear(CONTEXT);
        return;
      case "Close":
        // What was flushed is still spoken and its Flushed sent (Python's LiveKit plugin sends Flush
        // and Close back to back and waits for Flushed); text after the last flush is dropped.
        if (this.pendingFlushes.length === 0) this.closeNow();
        else this.closing = true;
        return;
      case "KeepAlive":
        this.speech.touch();
        return;
      default:
        this.warn("UNKNOWN_MESSAGE", `Message type ${JSON.stringify(String(message.type)).slice(0, 40)} is ignored`);
    }
  }

  /** Ends the socket normally (1000). */
  private closeNow(): void {
    this.closed = true;
    this.stream?.end();
    this.socket.close(1000, "");
  }

  private warn(code: string, description: string): void {
    this.socket.sendJson({ type: "Warning", description, code });
  }

  private event(event: SpeechStreamEvent): void {
    if (this.closed) return;
    switch (event.type) {
      case "audio":
        this.socket.send(event.audio);
        return;
      case "flushed":
        this.socket.sendJson({ type: "Flushed", sequence_id: this.pendingFlushes.shift() ?? this.flushes - 1 });
        if (this.closing && this.pendingFlushes.length === 0) this.closeNow();
        return;
      case "cleared":
        // A clear drops the flushes still queued: their audio will not come.
        this.pendingFlushes.length = 0;
        this.socket.sendJson({ type: "Cleared", sequence_id: Math.max(0, this.flushes - 1) });
        if (this.closing) this.closeNow();
        return;
      case "error":
        this.fail(event.error);
        return;
      default:
    }
  }

  /** Ends the socket for `error`: Deepgram's close code and reason, after an `Error` message. */
  private fail(error: AppError, fault: DeepgramFault = "data"): void {
    if (this.closed) return;
    this.closed = true;
    this.stream?.end();
    this.socket.sendJson(deepgramErrorMessage(error, fault));
    const { code, reason } = deepgramCloseFrame(error, fault);
    this.socket.close(code, reason);
  }
}
