/**
 * ElevenLabs' input-streaming WebSockets over the speech stream: `…/stream-input` (one context)
 * and `…/multi-stream-input` (contexts named by `context_id`, at most `tts.stream_max_contexts`).
 *
 * Client: `{"text", "context_id"?, "flush"?, "voice_settings"?, "generation_config"?,
 * "xi_api_key"?}`, `{"flush": true}`, `{"close_context": true}`, `{"close_socket": true}`; the
 * first text of a context opens it (ElevenLabs' `" "`). On `stream-input` an empty text ends the
 * input; on `multi-stream-input` it only keeps the context alive. `close_context` speaks what was
 * flushed and drops the rest at once (so it stops a context still receiving text, within one
 * frame), then `isFinal` (a context closing already is left to finish); `close_socket` does that
 * for every context, then closes.
 *
 * Server: `{"audio": base64, "isFinal": false, "normalizedAlignment", "alignment", "contextId"}` as
 * each sentence is spoken (alignments on the message that starts a sentence, ./alignment.ts; the
 * context's first message also carries `sawt`: the voice that speaks), then `{"isFinal": true,
 * "contextId"}`; errors as ./errors.ts says.
 */
import type { AppContext } from "../../core/context.ts";
import type { SpeechContextInfo, SpeechStream, SpeechStreamEvent } from "../../core/tts.ts";
import { verify } from "../../edge/auth.ts";
import { readyService } from "../../edge/readiness.ts";
import { AppError, toAppError } from "../../errors/taxonomy.ts";
import type { DoorConnection, DoorSocket, OpenUpgrade } from "../../http/ws-route.ts";
import type { ApiKeyRecord } from "../../store/keys.ts";
import { AlignmentWriter } from "./alignment.ts";
import { elevenLabsCloseFrame, elevenLabsErrorMessage } from "./errors.ts";
import { elevenLabsSettings, refuseUnsupported } from "./params.ts";

/** The one context of `stream-input`, and of a `multi-stream-input` message that names none. */
const DEFAULT_CONTEXT = "default";

/** Where the socket's voice and format come from: the path and the query. */
export interface SocketRoute {
  readonly voiceId: string;
  readonly query: URLSearchParams;
  /** `multi-stream-input`. */
  readonly multi: boolean;
}

interface ContextState {
  readonly info: SpeechContextInfo;
  readonly alignment: AlignmentWriter;
  announced: boolean;
  /** close_context (or close_socket) came: it speaks what was flushed, then `done`. */
  closing: boolean;
}

/** The Bearer token an `authorization` field carries. */
const bearerOf = (value: unknown) => (typeof value === "string" ? /^Bearer\s+(\S+)$/i.exec(value)?.[1] : undefined);

/** One ElevenLabs input-streaming socket; see the file comment. */
export class ElevenLabsConnection implements DoorConnection {
  private stream: SpeechStream | undefined;
  private readonly contexts = new Map<string, ContextState>();
  private closingSocket = false;
  private closed = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly socket: DoorSocket,
    private readonly upgrade: OpenUpgrade,
    private readonly route: SocketRoute,
  ) {
    if (upgrade.key) this.start(upgrade.key);
  }

  receive(frame: unknown): void {
    if (this.closed) return;
    if (frame instanceof Uint8Array || frame instanceof ArrayBuffer)
      return this.fail(
        new AppError("bad_request", "Binary frames are not accepted on a TTS socket: send JSON messages"),
      );
    if (typeof frame !== "object" || frame === null || Array.isArray(frame))
      return this.fail(new AppError("bad_request", "Expected a JSON object message"));
    const message = frame as Record<string, unknown>;
    try {
      // ElevenLabs lets the key come in the first message instead of the header.
      this.stream ??= this.start(
        verify(this.ctx, String(message.xi_api_key ?? bearerOf(message.authorization) ?? "") || undefined),
      );
    } catch (error) {
      return this.fail(toAppError(error));
    }
    const context = this.route.multi && typeof message.context_id === "string" ? message.context_id : DEFAULT_CONTEXT;
    try {
      this.handle(message, context);
    } catch (thrown) {
      const error = toAppError(thrown);
      // On one context of many, an error ends that context only; on stream-input, the socket.
      if (this.route.multi) this.socket.sendJson(elevenLabsErrorMessage(error, context));
      else this.fail(error);
    }
  }

  abandon(): void {
    this.closed = true;
    this.stream?.end();
  }

  private start(key: ApiKeyRecord): SpeechStream {
    const timeout = Number(this.route.query.get("inactivity_timeout"));
    this.stream = readyService(this.ctx, "tts").openSpeechStream({
      key,
      requestId: this.upgrade.requestId,
      door: "elevenlabs",
      ...(Number.isFinite(timeout) && timeout > 0 ? { idleSeconds: timeout } : {}),
      onEvent: (event) => this.event(event),
      onEnd: (error) => this.fail(error),
    });
    return this.stream;
  }

  private handle(message: Record<string, unknown>, context: string): void {
    const stream = this.stream!;
    refuseUnsupported(message);
    if (message.close_socket === true) return this.closeSocket();
    if (message.close_context === true) return this.closeContext(context);
    const text = message.text;
    if (text !== undefined && typeof text !== "string") throw new AppError("bad_request", "text must be a string");
    if (typeof text === "string") {
      if (!stream.has(context)) {
        const settings = elevenLabsSettings(
          this.route.voiceId,
          this.route.query.get("output_format"),
          message.voice_settings,
          this.ctx.config,
        );
        this.contexts.set(context, {
          info: stream.open(context, { ...settings, timings: true }),
          alignment: new AlignmentWriter(),
          announced: false,
          closing: false,
        });
      } else if (text === "" && !this.route.multi) {
        // stream-input: an empty text ends the input (multi-stream-input: a keep-alive, with its flush).
        stream.close(context);
        return;
      }
      if (text === "") stream.touch();
      else stream.text(context, text);
    }
    if (message.flush === true) stream.flush(context);
  }

  /**
   * Speaks what `context` flushed and drops the rest. Once only: a context already closing (a
   * second close_context, or close_socket after one) is left to finish, so close_socket goes on
   * to close every other context (the speech stream refuses a second close of a context).
   */
  private closeContext(context: string): void {
    const state = this.contexts.get(context);
    if (state?.closing || !this.stream?.has(context)) return;
    if (state) state.closing = true;
    this.stream.close(context, { dropUnflushed: true });
  }

  private closeSocket(): void {
    this.closingSocket = true;
    for (const context of [...this.contexts.keys()]) this.closeContext(context);
    if (this.contexts.size === 0) this.end(1000, "");
  }

  private event(event: SpeechStreamEvent): void {
    const state = this.contexts.get(event.context);
    if (this.closed || !state) return;
    const contextId = this.route.multi ? { contextId: event.context } : {};
    if (event.type === "audio") {
      const alignment = event.timings ? state.alignment.next(event.timings) : undefined;
      const { info } = state;
      this.socket.sendJson({
        audio: Buffer.from(event.audio.buffer, event.audio.byteOffset, event.audio.byteLength).toString("base64"),
        isFinal: false,
        ...(alignment ? { normalizedAlignment: alignment, alignment } : {}),
        ...contextId,
        ...(state.announced
          ? {}
          : {
              sawt: { voice: info.voice, dialect: info.dialect, engine: info.engine, fallback: info.fallback ?? null },
            }),
      });
      state.announced = true;
      return;
    }
    if (event.type !== "done" && event.type !== "error") return;
    this.contexts.delete(event.context);
    if (event.type === "error") {
      if (!this.route.multi) return this.fail(event.error);
      this.socket.sendJson(elevenLabsErrorMessage(event.error, event.context));
    } else this.socket.sendJson({ isFinal: true, ...contextId });
    if (!this.route.multi || (this.closingSocket && this.contexts.size === 0)) this.end(1000, "");
  }

  /** Ends the socket for `error`: ElevenLabs' error message, then the close frame. */
  private fail(error: AppError): void {
    if (this.closed) return;
    this.socket.sendJson(elevenLabsErrorMessage(error));
    const { code, reason } = elevenLabsCloseFrame(error);
    this.end(code, reason);
  }

  private end(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.stream?.end();
    this.socket.close(code, reason);
  }
}
