/**
 * Sends audio in 20 ms packets paced in real time: RTP (an endpoint, ./endpoint.ts) or any door's
 * frames (AudioSocket, chan_websocket: a {@link PacketSink}). Each packet has a slot on an absolute
 * schedule (start + n · 20 ms), so timer jitter never accumulates into drift; a packet sent more
 * than one packet time after its slot is counted late. When synthesis falls behind (the queue
 * runs dry before the source ends) the next packet starts a new talk spurt (marker bit) on a new
 * schedule. PAUSE holds packets; RESUME continues with a marker.
 *
 * A peer that plays from its own queue on its own clock (Asterisk's chan_websocket) is sent
 * `leadMs` ahead of the schedule, so a late timer never leaves its queue empty; a peer that plays
 * what it receives at once (RTP, AudioSocket) gets no lead.
 */

/** Where paced packets go: an RTP endpoint, or a door's framing. */
export interface PacketSink {
  /** Sends one packet of `samples` samples' worth of payload; `marker` starts a talk spurt. */
  send(payload: Uint8Array, samples: number, marker: boolean): void;
}

/** Packet time. */
export const PTIME_MS = 20;
/**
 * After the last packet's playout time, a little longer before the stream counts as done: the
 * client's jitter buffer still holds the tail, and a SPEAK-COMPLETE that overtakes it makes some
 * clients (UniMRCP's) stop playing before the prompt's last packets.
 */
const PLAYOUT_MARGIN_MS = 80;

/** Paces one stream of wire-form audio bytes onto an endpoint; see the file comment. */
export class RtpPacer {
  private chunks: Uint8Array[] = [];
  private queued = 0;
  private ended = false;
  private paused = false;
  private stopped = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private nextAt = 0;
  private marker = true;
  private readonly drained = Promise.withResolvers<void>();
  private readonly emptied = Promise.withResolvers<void>();
  /** Packets sent so far. */
  packets = 0;
  /** Bytes of the stream sent so far. */
  private sentBytes = 0;
  /** Callbacks waiting for the stream to reach a byte offset, in order. */
  private watchers: { readonly at: number; readonly run: () => void }[] = [];
  /** When the first packet left (performance.now()), if one did. */
  firstSentAt: number | undefined;

  constructor(
    private readonly endpoint: PacketSink,
    /** Bytes of one 20 ms packet in the codec's wire form. */
    private readonly packetBytes: number,
    /** Samples (clock ticks) per packet. */
    private readonly packetSamples: number,
    private readonly onLate: () => void,
    /** How far ahead of real time packets go (a peer with its own play-out queue). */
    private readonly leadMs = 0,
  ) {}

  /** Queues audio; starts sending when idle. */
  push(bytes: Uint8Array): void {
    if (this.stopped || bytes.length === 0) return;
    this.chunks.push(bytes);
    this.queued += bytes.length;
    this.kick();
  }

  /** No more audio will come: the rest is sent, then {@link done} settles. */
  end(): void {
    this.ended = true;
    this.kick();
    if (this.queued === 0 && !this.timer) this.finish();
  }

  /**
   * Runs `callback` once the first `bytes` bytes pushed have been sent (at once when they have): a
   * point in the audio, such as a speech marker, reported as the caller's player reaches it. Never
   * runs after {@link stop}. Callbacks may come in any order of offsets; they run in that of their offsets.
   */
  at(bytes: number, callback: () => void): void {
    if (this.stopped) return;
    if (bytes <= this.sentBytes) {
      callback();
      return;
    }
    // Kept sorted: each packet runs the watchers from the front (a call holds its synthesis at an
    // offset below a mark it placed earlier).
    const after = this.watchers.findIndex((watcher) => watcher.at > bytes);
    this.watchers.splice(after < 0 ? this.watchers.length : after, 0, { at: bytes, run: callback });
  }

  /** Settles once everything queued was sent after {@link end} and its play-out time passed, or on {@link stop}. */
  get done(): Promise<void> {
    return this.drained.promise;
  }

  /** Settles once the last packet left after {@link end} (before its play-out time), or on {@link stop}. */
  get sent(): Promise<void> {
    return this.emptied.promise;
  }

  /** Holds packets until {@link resume}. */
  pause(): void {
    this.paused = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Continues after {@link pause}. */
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.marker = true;
    this.kick();
  }

  /** Drops what is queued and stops now. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.chunks = [];
    this.queued = 0;
    this.watchers = [];
    this.finish();
  }

  private finish(): void {
    this.emptied.resolve();
    this.drained.resolve();
  }

  private kick(): void {
    if (this.timer || this.paused || this.stopped) return;
    if (this.queued < this.packetBytes && !(this.ended && this.queued > 0)) return;
    // With a lead the first slots lie in the past: that much audio goes at once.
    this.nextAt = performance.now() - this.leadMs;
    this.marker = true;
    this.tick();
  }

  private take(count: number): Uint8Array {
    const out = new Uint8Array(count);
    let filled = 0;
    while (filled < count) {
      const head = this.chunks[0]!;
      const n = Math.min(head.length, count - filled);
      out.set(head.subarray(0, n), filled);
      filled += n;
      if (n === head.length) this.chunks.shift();
      else this.chunks[0] = head.subarray(n);
    }
    this.queued -= count;
    return out;
  }

  private tick(): void {
    this.timer = undefined;
    if (this.paused || this.stopped) return;
    const full = this.queued >= this.packetBytes;
    if (!full && !(this.ended && this.queued > 0)) {
      // Ran dry: wait for more audio (push/end kick a new talk spurt).
      if (this.ended) this.finish();
      return;
    }
    const now = performance.now();
    // Slots run `leadMs` ahead of play-out: a packet is late when it leaves after its play-out slot.
    const behind = now - (this.nextAt + this.leadMs);
    if (behind > PTIME_MS) this.onLate();
    const count = full ? this.packetBytes : this.queued;
    const samples = full ? this.packetSamples : Math.round((this.packetSamples * count) / this.packetBytes);
    this.endpoint.send(this.take(count), samples, this.marker);
    this.sentBytes += count;
    while (this.watchers.length > 0 && this.watchers[0]!.at <= this.sentBytes) this.watchers.shift()!.run();
    this.firstSentAt ??= now;
    this.marker = false;
    this.packets++;
    this.nextAt += PTIME_MS;
    // Far behind (a stalled event loop): start a fresh schedule rather than bursting to catch up.
    if (behind > 5 * PTIME_MS) this.nextAt = now + PTIME_MS - this.leadMs;
    if (this.queued === 0 && this.ended) {
      // The last packet has been sent; completion waits for its playout time.
      this.emptied.resolve();
      const playout = this.nextAt + this.leadMs + PLAYOUT_MARGIN_MS;
      this.timer = setTimeout(() => this.finish(), Math.max(0, playout - performance.now()));
      return;
    }
    this.timer = setTimeout(() => this.tick(), Math.max(0, this.nextAt - performance.now()));
  }
}
