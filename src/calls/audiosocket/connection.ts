/**
 * One AudioSocket connection (issue 41) as Asterisk makes it (`AudioSocket(uuid,host:port)`,
 * `Dial(AudioSocket/host:port/uuid[/c(slin16)])`, ARI externalMedia over AudioSocket): the UUID
 * frame first, then audio frames in one linear kind (20 ms each, in real time), DTMF frames, and a
 * hangup — the connection closing, as Asterisk does it, or a 0x00 frame. The call opens at the
 * first audio frame (its kind fixes the format) under the UUID as its id and the key its source
 * network maps to; Sawt's speech goes back in the same kind, 20 ms frames paced on the wall clock
 * (Asterisk plays what it receives at once and paces nothing).
 *
 * What is not AudioSocket closes the connection, counted by reason and logged: audio before the
 * UUID, a kind Sawt does not take (Asterisk sends μ-law labelled 0x10 for a non-slin channel:
 * the docs say to use slin), a payload over 16 KiB, a change of kind mid-call. A peer that does
 * not read what Sawt sends (more than a second or so buffered) is cut too.
 */
import type { Socket } from "node:net";
import type { AppContext } from "../../core/context.ts";
import { AppError, toAppError } from "../../errors/taxonomy.ts";
import type { CallFormat } from "../format.ts";
import type { CallService } from "../service.ts";
import type { CallSession } from "../session.ts";
import type { ConnectionGuard, ConnectionPlace } from "../../edge/connection-guard.ts";
import { type CallRefusal, countRefusal } from "../connections.ts";
import { audioKind, audioRate, encodeFrame, type Frame, FrameError, FrameReader, KIND, uuidText } from "./frames.ts";

/** Bytes Sawt lets pile up unread by the peer before it gives the connection up (≈ 1 s at 48 kHz). */
const MAX_UNREAD_BYTES = 128 * 1024;
/** How long a hung-up peer has to close its side before the socket is destroyed. */
const CLOSE_GRACE_MS = 1000;

/** See the file comment. */
export class AudioSocketConnection {
  private readonly reader = new FrameReader();
  private readonly place: ConnectionPlace;
  private uuid: string | undefined;
  private kind: number | undefined;
  private session: CallSession | undefined;
  private closing = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly calls: CallService,
    guard: ConnectionGuard,
    private readonly socket: Socket,
    private readonly address: string,
  ) {
    // The guard counts the silence; the connection gets its hangup frame.
    this.place = guard.hold(() => this.refuse(undefined, "no UUID and audio in time"));
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.data(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
    socket.on("error", () => undefined);
    socket.on("close", () => this.closed());
  }

  private data(chunk: Uint8Array): void {
    if (this.closing) return;
    let frames: Frame[];
    try {
      frames = this.reader.push(chunk);
    } catch (error) {
      if (!(error instanceof FrameError)) throw error;
      return this.protocolError(error.message);
    }
    for (const frame of frames) {
      if (this.closing) return;
      this.frame(frame);
    }
  }

  private frame(frame: Frame): void {
    const { kind, payload } = frame;
    if (kind === KIND.hangup) return this.hangup();
    if (this.uuid === undefined) {
      if (kind !== KIND.uuid) return this.protocolError(`kind 0x${kind.toString(16)} before the UUID`);
      const uuid = uuidText(payload);
      if (!uuid) return this.protocolError(`a UUID of ${payload.length} bytes`);
      this.uuid = uuid;
      return;
    }
    if (kind === KIND.dtmf) {
      if (payload.length >= 1) this.session?.dtmf(String.fromCharCode(payload[0]!));
      return;
    }
    if (kind === KIND.error) {
      const error = new AppError("internal", "Asterisk reported an AudioSocket error (kind 0xFF)");
      void this.session?.end("error", error);
      return this.close();
    }
    if (audioRate(kind) === undefined)
      return this.protocolError(kind === KIND.uuid ? "a second UUID" : `unknown kind 0x${kind.toString(16)}`);
    if (this.kind === undefined && !this.open(kind)) return;
    if (kind !== this.kind) return this.protocolError(`audio kind changed to 0x${kind.toString(16)} mid-call`);
    this.session?.audio(payload);
  }

  /** Opens the call at its first audio frame; false when it was refused (the connection is closing). */
  private open(kind: number): boolean {
    const rate = audioRate(kind)!;
    const format: CallFormat = { encoding: "pcm_s16le", sampleRate: rate };
    if (rate > 48000) {
      this.protocolError(`audio at ${rate} Hz (Sawt takes 8 to 48 kHz)`);
      return false;
    }
    this.kind = kind;
    try {
      const key = this.calls.peers.keyFor(this.address);
      this.session = this.calls.open(
        {
          id: this.uuid!,
          door: "audiosocket",
          key,
          format,
          output: { format, leadMs: 0, send: (frame) => this.write(encodeFrame(audioKind(format), frame)) },
          hangup: () => this.sendHangup(),
        },
        `audiosocket-${this.uuid}`,
      );
    } catch (thrown) {
      const error = toAppError(thrown);
      this.refuse(error.status === 403 ? "key" : error.status === 400 ? "protocol" : "unavailable", error.detail);
      return false;
    }
    this.place.identify();
    return true;
  }

  private write(bytes: Uint8Array): void {
    if (this.closing || this.socket.destroyed) return;
    if (this.socket.writableLength > MAX_UNREAD_BYTES) {
      // The peer stopped reading: what Sawt says would pile up in memory.
      void this.session?.end("error", new AppError("timeout", "The AudioSocket peer stopped reading"));
      this.socket.destroy();
      return;
    }
    this.socket.write(bytes);
  }

  /** The peer hung up with a 0x00 frame. */
  private hangup(): void {
    void this.session?.end("hangup");
    this.close();
  }

  /** Sawt hangs up (a command, a bound, shutdown): the 0x00 frame, then the close. */
  private sendHangup(): void {
    if (this.closing) return;
    this.write(encodeFrame(KIND.hangup));
    this.close();
  }

  private protocolError(what: string): void {
    const session = this.session;
    // Counted first: ending the call hangs up, after which a refusal would no longer count.
    this.refuse("protocol", what);
    if (session) void session.end("error", new AppError("bad_request", `AudioSocket: ${what}`));
  }

  /** Closes a connection Sawt will not (or no longer) serve: a hangup frame, then the close. */
  private refuse(reason: CallRefusal | undefined, detail: string): void {
    if (this.closing) return;
    if (reason) countRefusal(this.ctx, "audiosocket", reason);
    this.ctx.log.debug("audiosocket connection closed", { reason: reason ?? "silent", detail, remote: this.address });
    this.sendHangup();
  }

  private close(): void {
    if (this.closing) return;
    this.closing = true;
    this.socket.end();
    setTimeout(() => this.socket.destroy(), CLOSE_GRACE_MS).unref?.();
  }

  private closed(): void {
    this.closing = true;
    this.place.release();
    // The connection closing is how Asterisk hangs up.
    void this.session?.end("hangup");
  }
}
