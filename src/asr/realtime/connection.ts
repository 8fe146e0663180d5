/**
 * One OpenAI Realtime transcription connection: client events in, server events out, over the
 * live core (src/asr/live/session.ts). Events and fields follow OpenAI's Realtime API
 * (GA and the older beta `transcription_session.*` shape). Sawt extensions, always as EXTRA
 * fields: `dialect`, `start`, `end` (seconds) on `…transcription.completed`; `transcript` (the whole
 * current hypothesis, which may revise earlier deltas) on `…transcription.delta`; `error.sawt`
 * (Sawt's REST error body) on `error` events. With `session.channels` > 1 (interleaved frames,
 * issue #27) every speech, commit, delta and completed event also carries `channel` and
 * `speaker`, and each channel has its own items. Written forms and redaction (`session.itn`,
 * `session.redact`) are the live session's; completed events then carry `redactions`.
 */
import { randomBytes } from "node:crypto";
import type { LiveEvent, LiveTranscriptionOptions } from "../../core/asr.ts";
import type { AppContext } from "../../core/context.ts";
import { errorBody } from "../../edge/error-body.ts";
import { closeCodeFor } from "../../http/ws-route.ts";
import { realtimeErrorEvent } from "./error-event.ts";
import { openLiveSession, type LiveSession } from "../live/session.ts";
import { formattingRequest } from "../format/request.ts";
import { AppError, toAppError } from "../../errors/taxonomy.ts";
import type { ApiKeyRecord } from "../../store/keys.ts";
import {
  applyBetaUpdate,
  applyGaUpdate,
  betaSessionJson,
  DEFAULT_SETTINGS,
  gaSessionJson,
  ParamError,
  type RealtimeSettings,
} from "./session-config.ts";

/** What the connection needs from its socket. */
export interface RealtimeSocket {
  sendJson(event: Record<string, unknown>): void;
  close(code: number, reason: string): void;
}

const id = (prefix: string) => `${prefix}_${randomBytes(10).toString("hex")}`;

/** One channel's conversation items. */
interface ChannelItems {
  item: string | null;
  previousItem: string | null;
  sentText: string;
}
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CLIENT_EVENTS = new Set([
  "session.update",
  "transcription_session.update",
  "input_audio_buffer.append",
  "input_audio_buffer.commit",
  "input_audio_buffer.clear",
]);

/** See the file comment. */
export class RealtimeConnection {
  private readonly sessionId = id("sess");
  private settings: RealtimeSettings = DEFAULT_SETTINGS;
  private readonly session: LiveSession;
  /** Per channel: the item the current utterance becomes (created at speech start or the first delta), the last one, the text sent. */
  private readonly items = new Map<number, ChannelItems>();

  constructor(
    private readonly ctx: AppContext,
    private readonly socket: RealtimeSocket,
    init: { key: ApiKeyRecord; requestId: string; beta: boolean },
  ) {
    this.beta = init.beta;
    this.keyId = init.key.id;
    this.session = openLiveSession(
      ctx,
      {
        door: "realtime",
        requestId: init.requestId,
        caller: { key: init.key },
        onEvent: (event) => this.forward(event),
        onEnd: (error) => {
          if (error) this.sendError(error);
          this.socket.close(closeCodeFor(error), error ? error.detail.slice(0, 120) : "session ended");
        },
      },
      this.format(),
    );
    this.session.configure(this.live(this.settings), this.format());
    this.send(this.beta ? "transcription_session.created" : "session.created", { session: this.sessionJson() });
  }

  private readonly beta: boolean;
  private readonly keyId: string;

  /** One client frame: `text` is the parsed JSON (or the raw string), `binary` a binary frame. */
  receive(message: unknown): void {
    this.session.touch();
    if (message instanceof Uint8Array) {
      this.sendError(
        new AppError(
          "bad_request",
          "Binary frames are not part of this protocol: send JSON events (audio as base64 in input_audio_buffer.append)",
        ),
        "invalid_binary_frame",
      );
      return;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      this.sendError(new AppError("bad_request", "Every frame must be a JSON object event"), "invalid_json");
      return;
    }
    const event = message as Record<string, unknown>;
    const clientEventId = typeof event.event_id === "string" ? event.event_id : null;
    const type = event.type;
    if (typeof type !== "string" || !CLIENT_EVENTS.has(type)) {
      const shown = typeof type === "string" ? `'${type.slice(0, 64)}'` : "missing";
      this.sendError(
        new AppError("bad_request", `Invalid event type ${shown}: this endpoint serves transcription events only`),
        "invalid_event_type",
        clientEventId,
        "type",
      );
      return;
    }
    try {
      this.handle(type, event, clientEventId);
    } catch (error) {
      this.sendError(toAppError(error), undefined, clientEventId, error instanceof ParamError ? error.param : null);
    }
  }

  /** The client went away. */
  abandon(): void {
    this.session.abandon();
  }

  private handle(type: string, event: Record<string, unknown>, clientEventId: string | null): void {
    switch (type) {
      case "session.update":
      case "transcription_session.update": {
        const beta = type === "transcription_session.update";
        const settings = beta
          ? applyBetaUpdate(event.session, this.settings)
          : applyGaUpdate(event.session, this.settings);
        const chosen = this.languageChosen || namesLanguage(event.session);
        const live = this.live(settings, chosen);
        this.settings = settings;
        this.languageChosen = chosen;
        this.session.configure(live, this.format());
        this.send(beta ? "transcription_session.updated" : "session.updated", {
          session: beta ? betaSessionJson(this.sessionId, this.settings) : gaSessionJson(this.sessionId, this.settings),
        });
        return;
      }
      case "input_audio_buffer.append": {
        const audio = event.audio;
        if (typeof audio !== "string" || !BASE64.test(audio))
          throw new ParamError("audio", "must be base64-encoded audio bytes");
        this.session.audio(Buffer.from(audio, "base64"));
        return;
      }
      case "input_audio_buffer.commit":
        this.session.commit((error) => this.sendError(error, "input_audio_buffer_commit_empty", clientEventId));
        return;
      case "input_audio_buffer.clear":
        this.session.clear(() => {
          for (const items of this.items.values()) {
            items.item = null;
            items.sentText = "";
          }
          this.send("input_audio_buffer.cleared", {});
        });
        return;
    }
  }

  /** Whether the client named a transcription language (until then the call takes the default recogniser). */
  private languageChosen = false;

  /** The live options of the session's settings (the live core adds the key's phrase list and floor). */
  private live(settings: RealtimeSettings, languageChosen = this.languageChosen): LiveTranscriptionOptions {
    const { language } = settings.transcription;
    const hotwords = settings.transcription.hotwords ?? [];
    return {
      turnDetection: settings.turnDetection,
      partialIntervalMs: this.ctx.config.streaming.partial_interval_ms,
      ...(settings.speakers !== null ? { speakers: settings.speakers } : {}),
      ...(hotwords.length > 0 ? { hotwords } : {}),
      // A language the client named routes the call (English: the built-in recogniser; Arabic:
      // the packs, or a 400 without one); before that the default recogniser serves it.
      ...(languageChosen && (language === "en" || language === "ar") ? { language } : {}),
      formatting: formattingRequest(
        { ...(settings.itn !== null ? { itn: settings.itn } : {}), redact: settings.redact },
        "session.redact",
      ),
    };
  }

  /** The session's audio format with its interleaved channels. */
  private format() {
    return { ...this.settings.format, channels: this.settings.channels };
  }

  private sessionJson() {
    return this.beta ? betaSessionJson(this.sessionId, this.settings) : gaSessionJson(this.sessionId, this.settings);
  }

  private channelItems(channel: number): ChannelItems {
    let items = this.items.get(channel);
    if (!items) {
      items = { item: null, previousItem: null, sentText: "" };
      this.items.set(channel, items);
    }
    return items;
  }

  private currentItem(items: ChannelItems): string {
    items.item ??= id("item");
    return items.item;
  }

  private forward(event: LiveEvent): void {
    const items = this.channelItems(event.type === "error" ? 0 : (event.channel ?? 0));
    // A split channel's label, as extra fields (none for OpenAI's mono session).
    const label =
      event.type !== "error" && event.channel !== undefined ? { channel: event.channel, speaker: event.speaker } : {};
    switch (event.type) {
      case "speech_started":
        items.item = id("item");
        items.sentText = "";
        this.send("input_audio_buffer.speech_started", {
          audio_start_ms: event.audioStartMs,
          item_id: items.item,
          ...label,
        });
        return;
      case "speech_stopped":
        this.send("input_audio_buffer.speech_stopped", {
          audio_end_ms: event.audioEndMs,
          item_id: this.currentItem(items),
          ...label,
        });
        return;
      case "committed":
        this.send("input_audio_buffer.committed", {
          previous_item_id: items.previousItem,
          item_id: this.currentItem(items),
          ...label,
        });
        return;
      case "partial": {
        // OpenAI's deltas only append; a revised hypothesis sends an empty delta and the whole text.
        const delta = event.text.startsWith(items.sentText) ? event.text.slice(items.sentText.length) : "";
        if (delta !== "") items.sentText = event.text;
        this.send("conversation.item.input_audio_transcription.delta", {
          item_id: this.currentItem(items),
          content_index: 0,
          delta,
          transcript: event.text,
          ...label,
        });
        return;
      }
      case "final": {
        const item = this.currentItem(items);
        this.send("conversation.item.input_audio_transcription.completed", {
          item_id: item,
          content_index: 0,
          transcript: event.text,
          usage: { type: "duration", seconds: Math.round((event.end - event.start) * 1000) / 1000 },
          dialect: event.dialect,
          start: event.start,
          end: event.end,
          ...(event.redactions ? { redactions: event.redactions } : {}),
          ...label,
        });
        items.previousItem = item;
        items.item = null;
        items.sentText = "";
      }
    }
  }

  private send(type: string, fields: Record<string, unknown>): void {
    this.socket.sendJson({ event_id: id("event"), type, ...fields });
  }

  private sendError(
    error: AppError,
    code?: string,
    clientEventId: string | null = null,
    param: string | null = null,
  ): void {
    this.socket.sendJson(realtimeErrorEvent(error, { eventId: id("event"), code, clientEventId, param }));
  }
}

/**
 * Whether a session update (already checked) names a transcription language, GA or beta shape:
 * `language`, or a `languages` list of one language (./transcription.ts).
 */
function namesLanguage(session: unknown): boolean {
  const at = (value: unknown, ...path: string[]) =>
    path.reduce<unknown>(
      (node, key) => (node !== null && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined),
      value,
    );
  const named = (transcription: unknown) => {
    const language = at(transcription, "language");
    const languages = at(transcription, "languages");
    if (typeof language === "string" && language.trim() !== "") return true;
    return (
      Array.isArray(languages) && new Set(languages.map((l) => String(l).split(/[-_]/)[0]!.toLowerCase())).size === 1
    );
  };
  return named(at(session, "audio", "input", "transcription")) || named(at(session, "input_audio_transcription"));
}
