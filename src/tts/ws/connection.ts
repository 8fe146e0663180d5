/**
 * One TTS WebSocket: its speech stream (opened on the first message that needs it, so a socket
 * opened while the engine warms up gets the 503 per message, as REST does) and the translation of
 * the stream's events into the socket's frames (./routes.ts has the protocol).
 */
import type { AppContext } from "../../core/context.ts";
import type { SpeechContextInfo, SpeechStream, SpeechStreamEvent } from "../../core/tts.ts";
import { readyService } from "../../edge/readiness.ts";
import type { FieldNaming } from "../../errors/fields.ts";
import { AppError, toAppError } from "../../errors/taxonomy.ts";
import type { DoorConnection, DoorSocket, Upgrade } from "../../http/ws-route.ts";
import { parseSpeech, parseSpeechSettings } from "../schema.ts";
import { NO_AUDIO_DETAIL } from "../service.ts";
import { type ClientMessage, DEFAULT_CONTEXT, parseClientMessage } from "./messages.ts";

/** A WebSocket message names its fields as sent (`sample_rate`); the whole message is `message`. */
const MESSAGE_FIELDS: FieldNaming = { root: "message" };

/** What the socket knows of an open context. */
interface ContextState {
  readonly info: SpeechContextInfo;
  /** Opened by today's one-request message: its start waits for audio, its end and errors keep their shape. */
  readonly oneRequest: boolean;
  started: boolean;
  bytes: number;
  /** Its text could not be taken: it is being dropped and reports nothing more. */
  silent?: boolean;
}

/** Milliseconds as the socket reports them (a tenth of a millisecond is plenty). */
const ms = (value: number) => Math.round(value * 10) / 10;

/** One TTS socket; see the file comment. */
export class TtsConnection implements DoorConnection {
  private stream: SpeechStream | undefined;
  private readonly contexts = new Map<string, ContextState>();

  constructor(
    private readonly ctx: AppContext,
    private readonly socket: DoorSocket,
    private readonly upgrade: Upgrade,
  ) {}

  receive(frame: unknown): void {
    let message: ClientMessage | undefined;
    try {
      message = parseClientMessage(frame);
      this.handle(message);
    } catch (error) {
      const context = message && message.kind !== "request" ? message.context : undefined;
      this.sendError(error, context);
    }
  }

  abandon(): void {
    this.stream?.end();
  }

  private speech(): SpeechStream {
    this.stream ??= readyService(this.ctx, "tts").openSpeechStream({
      key: this.upgrade.key,
      requestId: this.upgrade.requestId,
      door: "ws",
      onEvent: (event) => this.event(event),
      onEnd: (error) => {
        this.socket.sendError(error);
        this.socket.closeFor(error, "");
      },
    });
    return this.stream;
  }

  private handle(message: ClientMessage): void {
    if (message.kind === "request") return this.request(message.fields);
    const stream = this.speech();
    switch (message.kind) {
      case "text": {
        if (!stream.has(message.context)) {
          const settings = parseSpeechSettings(
            { response_format: "pcm", ...message.settings },
            { naming: MESSAGE_FIELDS },
            this.ctx.config,
          );
          this.opened(message.context, stream.open(message.context, settings), false);
        }
        stream.text(message.context, message.text);
        if (message.flush) stream.flush(message.context);
        return;
      }
      case "flush":
        return stream.flush(message.context);
      case "clear":
        stream.clear(message.context);
        return;
      case "close":
        return stream.close(message.context);
    }
  }

  /** Today's one-request message: a whole speech request, spoken in the default context. */
  private request(fields: Record<string, unknown>): void {
    const stream = this.speech();
    if (stream.has(DEFAULT_CONTEXT))
      throw new AppError("bad_request", "One request at a time: wait for the end message");
    const request = parseSpeech({ response_format: "pcm", ...fields }, { naming: MESSAGE_FIELDS }, this.ctx.config);
    const { input, ...settings } = request;
    const state = this.opened(DEFAULT_CONTEXT, stream.open(DEFAULT_CONTEXT, settings), true);
    try {
      stream.text(DEFAULT_CONTEXT, input);
      stream.close(DEFAULT_CONTEXT);
    } catch (error) {
      state.silent = true;
      stream.close(DEFAULT_CONTEXT, { dropUnflushed: true });
      throw error;
    }
  }

  private opened(context: string, info: SpeechContextInfo, oneRequest: boolean): ContextState {
    const state: ContextState = { info, oneRequest, started: false, bytes: 0 };
    this.contexts.set(context, state);
    if (!oneRequest) this.start(context, state);
    return state;
  }

  private start(context: string, state: ContextState): void {
    state.started = true;
    const { info } = state;
    this.socket.sendJson({
      type: "start",
      ...(state.oneRequest ? {} : { context }),
      voice: info.voice,
      dialect: info.dialect,
      engine: info.engine,
      ...(info.fallback ? { fallback: info.fallback } : {}),
      ...(info.voices ? { voices: info.voices } : {}),
      format: info.format,
      content_type: info.contentType,
      sample_rate: info.sampleRate,
    });
  }

  private event(event: SpeechStreamEvent): void {
    const state = this.contexts.get(event.context);
    if (!state || state.silent) {
      if (state && (event.type === "done" || event.type === "error")) this.contexts.delete(event.context);
      return;
    }
    const context = event.context;
    switch (event.type) {
      case "audio":
        if (!state.started) this.start(context, state);
        state.bytes += event.audio.byteLength;
        // The default context's audio is bare binary frames, as today; a named one's is announced.
        if (context !== DEFAULT_CONTEXT)
          this.socket.sendJson({ type: "audio", context, bytes: event.audio.byteLength, audio_ms: ms(event.atMs) });
        this.socket.send(event.audio);
        return;
      case "mark":
        this.socket.sendJson({ type: "mark", name: event.name, context, audio_ms: ms(event.audioMs) });
        return;
      case "flushed":
        this.socket.sendJson({ type: "flushed", context });
        return;
      case "cleared":
        this.socket.sendJson({
          type: "cleared",
          context,
          audio_ms_sent: ms(event.sent.ms),
          samples_sent: event.sent.samples,
        });
        return;
      case "done":
        this.contexts.delete(context);
        if (state.oneRequest && state.bytes === 0) this.sendError(new AppError("internal", NO_AUDIO_DETAIL));
        else this.socket.sendJson({ type: "end", ...(state.oneRequest ? {} : { context }), bytes: state.bytes });
        return;
      case "error":
        this.contexts.delete(context);
        this.sendError(event.error, state.oneRequest ? undefined : context);
        return;
    }
  }

  /** The error frame, naming the context it concerns (none for the one-request message's). */
  private sendError(thrown: unknown, context?: string): void {
    if (context === undefined || (context === DEFAULT_CONTEXT && this.contexts.get(context)?.oneRequest)) {
      this.socket.sendError(thrown);
      return;
    }
    this.socket.sendError(new ContextError(thrown, context));
  }
}

/** An error about one context: the error event carries its name (./routes.ts). */
export class ContextError extends AppError {
  constructor(
    thrown: unknown,
    readonly context: string,
  ) {
    const error = toAppError(thrown);
    super(error.kind, error.detail, {
      retryAfter: error.retryAfter,
      fields: error.fields,
      headers: error.headers,
      cause: error.cause,
    });
  }
}
