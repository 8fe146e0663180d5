/**
 * One chan_websocket call (issue 41): Asterisk's `Dial(WebSocket/<connection>/c(<codec>))` dials
 * Sawt (websocket_client.conf, subprotocol `media`), sends `MEDIA_START` (connection_id, channel,
 * channel_id — the call's id —, format, optimal_frame_size, ptime; channel_variables in JSON),
 * then raw audio in BINARY frames and control in TEXT frames: `DTMF_END`, `MEDIA_XOFF` /
 * `MEDIA_XON` (its queue is filling / has room: Sawt sends no media in between),
 * `MEDIA_MARK_PROCESSED` (a mark Sawt placed has been played: a `mark` or `playback.done`), and a
 * hangup, which is the socket closing (or a `HANGUP` text). Sawt answers in the control format
 * MEDIA_START came in: media in whole optimal_frame_size pieces (Asterisk drops a partial one),
 * paced a little ahead of real time since Asterisk plays from its own queue, `MARK_MEDIA` after
 * each prompt and at each SSML mark (its `playback.done` and `mark` wait for Asterisk's answer),
 * `FLUSH_MEDIA` on barge-in, `HANGUP` to end the call.
 */
import type { AppContext } from "../../core/context.ts";
import { AppError, toAppError } from "../../errors/taxonomy.ts";
import type { ConnectionGuard, ConnectionPlace } from "../../edge/connection-guard.ts";
import { type CallRefusal, countRefusal } from "../connections.ts";
import { type CallFormat, FORMAT_NAMES, frameBytes, namedFormat } from "../format.ts";
import { KEY_ID_VARIABLE } from "../peers.ts";
import type { CallService } from "../service.ts";
import type { CallSession } from "../session.ts";
import { type AsteriskEvent, command, correlationId, param, parseEvent } from "./control.ts";

/** How far ahead of real time media goes: enough that a late timer never leaves Asterisk's queue empty. */
export const LEAD_MS = 100;
/**
 * Largest message taken: Asterisk cannot send one over 65,500 bytes, and its media frames are a
 * few hundred. Checked here: Bun's limit is the server's, shared by every WebSocket route.
 */
export const MAX_MESSAGE_BYTES = 65_536;
/** How long Asterisk has to close the socket after Sawt's HANGUP. */
const CLOSE_GRACE_MS = 1000;

/** The socket as the door sees it. */
export interface AsteriskSocket {
  sendText(text: string): void;
  sendBinary(bytes: Uint8Array): void;
  close(code: number, reason: string): void;
}

/**
 * A channel variable of MEDIA_START's `channel_variables`. Asterisk lists them under their stored
 * names: one set on the caller's channel as `_SAWT_KEY_ID` (inherited once) reaches the WebSocket
 * channel as `SAWT_KEY_ID`, one set as `__SAWT_KEY_ID` (inherited always) keeps its underscores.
 */
function variableOf(variables: unknown, name: string): string | undefined {
  if (typeof variables !== "object" || variables === null) return undefined;
  const all = variables as Record<string, unknown>;
  const value = all[name] ?? all[`_${name}`] ?? all[`__${name}`];
  return typeof value === "string" ? value : undefined;
}

/**
 * A message's size in bytes: BINARY as sent, TEXT as sent or, when Elysia has parsed its JSON
 * already, as serialised again (its whitespace aside, the same).
 */
function sizeOf(message: unknown): number {
  if (message instanceof Uint8Array) return message.length;
  if (typeof message === "string") return Buffer.byteLength(message);
  if (typeof message !== "object" || message === null) return 0;
  return Buffer.byteLength(JSON.stringify(message) ?? "");
}

/** See the file comment. */
export class AsteriskConnection {
  private readonly place: ConnectionPlace;
  private session: CallSession | undefined;
  private json = false;
  private closing = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly calls: CallService,
    guard: ConnectionGuard,
    private readonly socket: AsteriskSocket,
    private readonly address: string,
    /** A key id from the URI (`v(SAWT_KEY_ID=…)`), for the plain-text format, which carries no variables. */
    private readonly uriKeyId: string | undefined,
  ) {
    // The guard counts the silence; the socket gets its close reason.
    this.place = guard.hold(() => this.refuse(undefined, 1008, "MEDIA_START expected"));
  }

  receive(message: unknown): void {
    if (this.closing) return;
    // TEXT messages too: one over the bound was parsed and acted on (a MEDIA_START of 70 KB opened a call).
    if (sizeOf(message) > MAX_MESSAGE_BYTES) return this.refuse("protocol", 1009, "message too big");
    if (message instanceof Uint8Array) {
      if (!this.session) return this.refuse("protocol", 1008, "media before MEDIA_START");
      this.session.audio(message);
      return;
    }
    const event = parseEvent(message);
    if (!event) {
      this.session?.touch();
      return;
    }
    if (!this.session) {
      if (event.event !== "MEDIA_START") return this.refuse("protocol", 1008, `${event.event} before MEDIA_START`);
      return this.start(event);
    }
    this.session.touch();
    switch (event.event) {
      case "DTMF_END":
        return this.session.dtmf(param(event, "digit"));
      case "MEDIA_XOFF":
        return this.session.flow(false);
      case "MEDIA_XON":
        return this.session.flow(true);
      case "MEDIA_MARK_PROCESSED":
        return this.session.marked(correlationId(event));
      case "HANGUP":
        void this.session.end("hangup");
        return;
      // MEDIA_START again, STATUS, QUEUE_DRAINED, MEDIA_BUFFERING_COMPLETED, ERROR: nothing to do.
    }
  }

  /** The socket closed: how Asterisk hangs up. */
  abandon(): void {
    this.closing = true;
    this.place.release();
    void this.session?.end("hangup");
  }

  private start(event: AsteriskEvent): void {
    this.json = event.json;
    const id = param(event, "channel_id");
    const format = namedFormat(param(event, "format"));
    if (!id) return this.refuse("protocol", 1008, "MEDIA_START without channel_id");
    if (!format)
      return this.refuse("protocol", 1003, `format ${param(event, "format")} is not one of ${FORMAT_NAMES.join(", ")}`);
    const keyId = variableOf(event.params.channel_variables, KEY_ID_VARIABLE) ?? this.uriKeyId;
    const frame = frameBytes(format);
    const optimal = Number(param(event, "optimal_frame_size")) || frame;
    try {
      const key = this.calls.peers.keyFor(this.address, keyId);
      this.session = this.calls.open(
        {
          id,
          door: "chan_websocket",
          key,
          format,
          output: this.output(format, optimal),
          hangup: () => this.hangup(),
        },
        `chan-websocket-${id}`,
      );
    } catch (thrown) {
      const error = toAppError(thrown);
      const reason = error.status === 403 ? "key" : error.status === 400 ? "protocol" : "unavailable";
      return this.refuse(reason, error.status === 503 ? 1013 : 1008, error.detail, error);
    }
    this.place.identify();
  }

  /** Where the call's speech goes: 20 ms frames, sent as whole optimal_frame_size pieces, marks in line with them. */
  private output(format: CallFormat, optimal: number) {
    const frame = frameBytes(format);
    // A 20 ms frame that is not a whole number of Asterisk's frames would lose its partial piece.
    const pieces = frame % optimal === 0 || optimal % frame !== 0 ? 1 : optimal / frame;
    let pending: Uint8Array[] = [];
    // Marks placed while frames wait for their piece: they follow that piece, not overtake it.
    let marks: string[] = [];
    const mark = (id: string) => this.socket.sendText(command("MARK_MEDIA", this.json, id));
    return {
      format,
      leadMs: LEAD_MS,
      send: (bytes: Uint8Array) => {
        if (this.closing) return;
        pending.push(bytes);
        if (pending.length < pieces) return;
        const out = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
        pending = [];
        this.socket.sendBinary(out);
        for (const id of marks.splice(0)) mark(id);
      },
      flush: () => {
        pending = [];
        marks = [];
        this.socket.sendText(command("FLUSH_MEDIA", this.json));
      },
      mark: (id: string) => {
        if (this.closing) return;
        if (pending.length > 0) marks.push(id);
        else mark(id);
      },
    };
  }

  /** Sawt ends the call: HANGUP, and the socket closes if Asterisk does not close it. */
  private hangup(): void {
    if (this.closing) return;
    this.closing = true;
    this.socket.sendText(command("HANGUP", this.json));
    setTimeout(() => this.socket.close(1000, "hangup"), CLOSE_GRACE_MS).unref?.();
  }

  /** Closes a socket Sawt will not serve, the reason in the close frame (Asterisk logs it). */
  private refuse(
    reason: CallRefusal | undefined,
    code: number,
    detail: string,
    error = new AppError("bad_request", `chan_websocket: ${detail}`),
  ): void {
    if (this.closing) return;
    this.closing = true;
    if (reason) countRefusal(this.ctx, "chan_websocket", reason);
    this.ctx.log.debug("chan_websocket connection closed", {
      reason: reason ?? "silent",
      detail,
      remote: this.address,
    });
    if (this.session) void this.session.end("error", error);
    this.socket.close(code, detail.slice(0, 120));
  }
}
