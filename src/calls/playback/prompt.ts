/**
 * One prompt played into a call: a `say`, or a `text` turn (its pieces up to the flush). Its audio
 * comes from the call's speech stream (./speech.ts) in the call's codec as fast as it is made;
 * until the prompt's turn to play it waits here, and the stream holds that context's next
 * sentence meanwhile (flow control), so a queued prompt costs one sentence of synthesis and
 * memory. Once playing, it is paced on the wall clock by the media kit's pacer
 * (../../media/pacer.ts) through the door's framing and padded to whole 20 ms frames with the
 * format's silence (chan_websocket drops a partial frame); synthesis stays at most
 * {@link AHEAD_MS} ahead of what was sent, so a clear wastes little of it.
 *
 * An SSML mark is a byte offset in the prompt's audio, reported once the audio before it was
 * played (a mark at the start: the first frame): on a door whose peer plays what it receives
 * (AudioSocket, RTP) as that frame leaves, on one whose peer has a queue and reports marks
 * (chan_websocket) at the peer's answer to the mark sent after that frame (./marks.ts). Done is when the caller has heard the prompt: the pacer's
 * play-out time, or the peer's answer to the mark placed after the last frame. A stop (clear, the
 * call ending) sends nothing more, at once: at most the frame already on its way.
 */
import { type PacketSink, RtpPacer } from "../../media/pacer.ts";
import { type CallFormat, FRAME_MS, frameBytes, frameSamples, silenceByte } from "../format.ts";
import { MARK_FALLBACK_MS, PeerMarks } from "./marks.ts";

/** What a prompt plays through: the call door's framing. */
export interface CallOutput {
  readonly format: CallFormat;
  /** How far ahead of real time frames may go: a peer with a play-out queue of its own. */
  readonly leadMs: number;
  /** Sends one 20 ms frame (whole frames only); `marker` starts a talk spurt (RTP's marker bit). */
  send(frame: Uint8Array, marker: boolean): void;
  /** Drops what the peer queued and has not played (chan_websocket's FLUSH_MEDIA). */
  flush?(): void;
  /** Places a mark after what was sent; the door reports it played with the player's `marked`. */
  mark?(id: string): void;
}

/** How far synthesis of the playing prompt may run ahead of the frames sent. */
export const AHEAD_MS = 15_000;

/** How a prompt ended. */
export interface PromptEnd {
  /** Milliseconds of it the caller heard (about: a lead is not heard before it is played). */
  readonly msPlayed: number;
  /** It was stopped (clear, hang-up) before its end. */
  readonly cleared: boolean;
  /** Milliseconds since the call started, when its first frame and its end were played (absent without audio). */
  readonly startMs?: number;
  readonly endMs?: number;
}

/** What a prompt reports beside its end. */
export interface PromptHooks {
  /** An SSML mark of the prompt was played. */
  readonly mark: (name: string) => void;
  /** A mark id unique in the call, for the peer's marks. */
  readonly markId: () => string;
}

/** See the file comment. */
export class Prompt {
  private chunks: Uint8Array[] = [];
  private marks: { readonly at: number; readonly name: string }[] = [];
  private readonly holds = new Set<() => void>();
  /** Marks placed on the pacer and not reached yet. */
  private readonly unreached = new Set<() => void>();
  /** Bytes of audio received. */
  private received = 0;
  private readonly filled = Promise.withResolvers<void>();
  private readonly halted = Promise.withResolvers<void>();
  private pacer: RtpPacer | undefined;
  private peer: PeerMarks | undefined;
  private aheadBytes = Number.POSITIVE_INFINITY;
  private frames = 0;
  private firstAt: number | undefined;
  private stopped = false;
  private paused = false;

  constructor(
    /** The call context it plays in (`playback.done` and `mark` name it). */
    readonly context: string,
    /** The words it says, for the call's transcript (SSML without its markup). */
    private words: string,
    private readonly hooks: PromptHooks,
  ) {}

  /** The words it says, for the call's transcript. */
  get text(): string {
    return this.words;
  }

  /** Adds a `text` piece's words. */
  append(piece: string): void {
    this.words += piece;
  }

  /**
   * The next bytes of its audio, in the call's codec. The promise returned, if any, holds the
   * context's next sentence until this prompt plays (or its play-out has caught up).
   */
  audio(bytes: Uint8Array): Promise<void> | undefined {
    if (this.stopped || bytes.length === 0) return undefined;
    this.received += bytes.length;
    const pacer = this.pacer;
    if (!pacer) {
      this.chunks.push(bytes);
      return this.hold();
    }
    pacer.push(bytes);
    if (this.received <= this.aheadBytes) return undefined;
    return this.hold((release) => pacer.at(this.received - this.aheadBytes, release));
  }

  /** An SSML mark: where the audio received so far ends. */
  mark(name: string): void {
    if (this.stopped) return;
    if (this.pacer) this.place(this.received, name);
    else this.marks.push({ at: this.received, name });
  }

  /** All of its audio has come (the stream flushed it, or its context ended). */
  finish(): void {
    this.filled.resolve();
  }

  /** Plays the prompt to its end (or its stop); `now` is milliseconds since the call started. */
  async play(output: CallOutput, now: () => number, onLate: () => void): Promise<PromptEnd> {
    if (this.stopped) return this.ended(now());
    const size = frameBytes(output.format);
    const sink: PacketSink = {
      send: (payload, _samples, marker) => {
        if (this.stopped) return;
        this.firstAt ??= now();
        this.frames++;
        output.send(payload, marker);
      },
    };
    const pacer = new RtpPacer(sink, size, frameSamples(output.format), onLate, output.leadMs);
    this.pacer = pacer;
    this.aheadBytes = (AHEAD_MS / FRAME_MS) * size;
    if (output.mark) this.peer = new PeerMarks(output.mark, this.hooks.markId, output.leadMs + MARK_FALLBACK_MS);
    if (this.paused) pacer.pause();
    for (const chunk of this.chunks.splice(0)) pacer.push(chunk);
    for (const { at, name } of this.marks.splice(0)) this.place(at, name);
    this.release();
    await this.filled.promise;
    if (!this.stopped) {
      const rest = this.received % size;
      if (rest > 0) pacer.push(new Uint8Array(size - rest).fill(silenceByte(output.format)));
      pacer.end();
      await pacer.sent;
      // Every frame has left: a mark in a prompt without audio is reached too.
      for (const reach of [...this.unreached]) reach();
      const peer = this.peer;
      if (!this.stopped && peer && this.received > 0) {
        const played = new Promise<void>((resolve) => peer.place(resolve));
        await Promise.race([played, this.halted.promise]);
      } else await pacer.done;
    }
    return this.ended(now());
  }

  /** The peer played mark `id` (chan_websocket MEDIA_MARK_PROCESSED); false when it is not this prompt's. */
  processed(id: string): boolean {
    return this.peer?.processed(id) ?? false;
  }

  /** Holds its frames (the peer's queue is full: MEDIA_XOFF). */
  pause(): void {
    this.paused = true;
    this.pacer?.pause();
  }

  /** Sends its frames again (MEDIA_XON). */
  resume(): void {
    this.paused = false;
    this.pacer?.resume();
  }

  /** Stops now: no frame more, no mark more, its context let go on. Returns how it ended. */
  stop(now: number): PromptEnd {
    this.stopped = true;
    this.pacer?.stop();
    this.peer?.drop();
    this.chunks = [];
    this.marks = [];
    this.unreached.clear();
    this.release();
    this.filled.resolve();
    this.halted.resolve();
    return this.ended(now);
  }

  /** Reports a mark once the audio before byte `at` was played. */
  private place(at: number, name: string): void {
    const reach = () => {
      if (!this.unreached.delete(reach) || this.stopped) return;
      if (this.peer) this.peer.place(() => this.hooks.mark(name));
      else this.hooks.mark(name);
    };
    this.unreached.add(reach);
    // A mark at the start is reached as the first frame leaves, not while the first sentence is still being made.
    this.pacer?.at(Math.max(at, 1), reach);
  }

  /** A promise the context's next sentence waits for; `arm` sets what releases it besides {@link release}. */
  private hold(arm?: (release: () => void) => void): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    const release = () => {
      this.holds.delete(release);
      resolve();
    };
    this.holds.add(release);
    arm?.(release);
    return promise;
  }

  /** Lets every held sentence go on. */
  private release(): void {
    for (const release of [...this.holds]) release();
  }

  private ended(now: number): PromptEnd {
    const sentMs = this.frames * FRAME_MS;
    // A lead's frames reach the caller only as the peer plays them: what was heard is bounded by the clock.
    const msPlayed = this.firstAt === undefined ? 0 : Math.round(Math.min(sentMs, Math.max(0, now - this.firstAt)));
    const played = this.stopped ? msPlayed : sentMs;
    return {
      msPlayed: played,
      cleared: this.stopped,
      ...(this.firstAt !== undefined ? { startMs: this.firstAt, endMs: this.firstAt + played } : {}),
    };
  }
}
