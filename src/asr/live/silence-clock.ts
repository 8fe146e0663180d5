/**
 * The live core's wall clock for silence. Callers stop sending audio when nobody speaks: a
 * gateway with silence suppression (nothing, or RFC 3389 comfort noise), a client that drops quiet
 * frames (LiveKit's Deepgram plugin stops a second after the last loud frame), a file streamed to
 * its end. An endpointer that counts only the silence it receives would then wait for ever (or for
 * the next timeout) with the caller's last utterance open. So a session whose utterances are cut
 * by the endpointer hears missing audio as silence, counted on the wall clock from the last frame
 * received, once no frame has come for longer than the stream's own rhythm allows
 * ({@link gapMs}); every timer built on the endpointer (speech-complete, speech-incomplete,
 * turn ends, utterance ends) then runs on the wall clock. Audio that arrives later continues the
 * stream after the silence, as a jitter buffer would have played it.
 *
 * A gap is measured from the later of the last frame and the moment the session had transcribed
 * everything it had: a client held back by flow control (gRPC) sends again only once its audio is
 * transcribed, and that wait is the server's, not silence.
 */

/** Fewest milliseconds without a frame before audio counts as missing (RTP jitter, WebSocket batching). */
const MIN_GAP_MS = 300;
/** A stream sending large chunks in real time may go this many chunk lengths between them. */
const CHUNKS_PER_GAP = 2;
/** How often silence is added once a gap is open. */
const TICK_MS = 40;
/** Most silence added per gap: every endpointing timer has run out long before. */
const MAX_FILL_MS = 10_000;

/** How long without a frame counts as missing audio, for a stream whose last chunk was `chunkMs` long. */
export function gapMs(chunkMs: number): number {
  return Math.max(MIN_GAP_MS, CHUNKS_PER_GAP * chunkMs);
}

/** See the file comment: one per live session, fed its audio arrivals, filling silence through `fill`. */
export class SilenceClock {
  private lastFrameAt = 0;
  private lastChunkMs = 0;
  /** When the session last had nothing of its audio left to transcribe. */
  private drainedAt = 0;
  private busy = 0;
  private filledMs = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;

  constructor(
    /** Adds `ms` of silence to the stream (queued behind everything received). */
    private readonly fill: (ms: number) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Starts or stops the clock (only endpointed sessions have one running). */
  set enabled(on: boolean) {
    this.running = on;
    if (!on) this.cancel();
    else if (this.lastFrameAt > 0) this.arm(gapMs(this.lastChunkMs));
  }

  /** A frame of `ms` of audio arrived; its transcription is queued (call {@link transcribed} after). */
  frame(ms: number): void {
    this.lastFrameAt = this.now();
    this.lastChunkMs = ms;
    this.filledMs = 0;
    this.busy++;
    if (this.running && !this.timer) this.arm(gapMs(ms));
  }

  /** A frame's audio was transcribed. */
  transcribed(): void {
    if (--this.busy === 0) this.drainedAt = this.now();
  }

  /** The session ended. */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), Math.max(1, ms));
  }

  private tick(): void {
    this.timer = undefined;
    if (!this.running || this.filledMs >= MAX_FILL_MS) return;
    const now = this.now();
    const gap = gapMs(this.lastChunkMs);
    const quietFor = now - Math.max(this.lastFrameAt, this.drainedAt);
    if (this.busy > 0 || quietFor < gap) {
      this.arm(this.busy > 0 ? TICK_MS : gap - quietFor);
      return;
    }
    // Counted from the last frame received, not from when the gap was noticed.
    const owed = Math.min(MAX_FILL_MS, now - this.lastFrameAt) - this.filledMs;
    if (owed >= 1) {
      this.filledMs += owed;
      this.fill(owed);
    }
    this.arm(TICK_MS);
  }
}
