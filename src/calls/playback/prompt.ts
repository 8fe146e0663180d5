/**
 * One prompt played into a call: synthesised by the TTS service's streaming path straight into the
 * call's format (the first frame leaves as soon as the first sentence is ready), padded to whole
 * 20 ms frames with the format's silence (chan_websocket drops a partial frame), and paced on the
 * wall clock by the media kit's pacer (./../../media/pacer.ts) through the door's framing. Done
 * is when the caller has heard it: the pacer's play-out time, or, on a door whose peer plays from
 * its own queue and reports marks (chan_websocket), the peer's answer to the mark placed after
 * the last frame. A stop (clear, the call ending) sends nothing more, at once: at most the frame
 * already on its way.
 */
import type { EncodedSpeechStream, SpeechRequest } from "../../core/tts.ts";
import { type PacketSink, RtpPacer } from "../../media/pacer.ts";
import { FRAME_MS, frameBytes, frameSamples, silenceByte, type CallFormat } from "../format.ts";

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
  mark?(name: string): void;
}

/** When a peer that takes marks never answers one (an Asterisk too old for MARK_MEDIA), done comes this long after play-out. */
export const MARK_FALLBACK_MS = 5000;

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

/** See the file comment. */
export class Prompt {
  private readonly abort = new AbortController();
  private pacer: RtpPacer | undefined;
  private frames = 0;
  private firstAt: number | undefined;
  private stopped = false;
  private paused = false;
  private readonly markPlayed = Promise.withResolvers<void>();

  constructor(
    readonly context: string,
    readonly request: SpeechRequest,
    /** The words it says, for the call's transcript (SSML without its markup). */
    readonly text: string,
    /** The mark name the door places after it, when the door takes marks. */
    readonly markName: string,
  ) {}

  /** Aborted when the prompt is stopped: synthesis and its admission slot are let go. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /**
   * Plays the prompt to its end (or its stop). `start` opens the synthesis; `now` is milliseconds
   * since the call started; `onLate` counts frames sent after their slot.
   */
  async play(
    output: CallOutput,
    start: (request: SpeechRequest, signal: AbortSignal) => Promise<EncodedSpeechStream>,
    now: () => number,
    onLate: () => void,
  ): Promise<PromptEnd> {
    const stream = await start(this.request, this.abort.signal);
    const sink: PacketSink = {
      send: (payload, _samples, marker) => {
        if (this.stopped) return;
        this.firstAt ??= now();
        this.frames++;
        output.send(payload, marker);
      },
    };
    const size = frameBytes(output.format);
    const pacer = new RtpPacer(sink, size, frameSamples(output.format), onLate, output.leadMs);
    this.pacer = pacer;
    if (this.paused) pacer.pause();
    let bytes = 0;
    const reader = stream.audio.getReader();
    try {
      while (!this.stopped) {
        const { value, done } = await reader.read();
        if (done) break;
        pacer.push(value);
        bytes += value.length;
      }
    } finally {
      if (this.stopped) await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
    if (!this.stopped) {
      const rest = bytes % size;
      if (rest > 0) pacer.push(new Uint8Array(size - rest).fill(silenceByte(output.format)));
      pacer.end();
      await pacer.sent;
      if (!this.stopped && output.mark) {
        output.mark(this.markName);
        const fallback = setTimeout(() => this.markPlayed.resolve(), output.leadMs + MARK_FALLBACK_MS);
        await this.markPlayed.promise;
        clearTimeout(fallback);
      } else await pacer.done;
    }
    return this.ended(now());
  }

  /** The peer played this prompt's mark. */
  marked(): void {
    this.markPlayed.resolve();
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

  /** Stops now: no frame more, synthesis aborted. Returns how it ended. */
  stop(now: number): PromptEnd {
    this.stopped = true;
    this.pacer?.stop();
    this.abort.abort();
    this.markPlayed.resolve();
    return this.ended(now);
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
