/**
 * Marks placed on a peer that plays from a queue of its own and says when it reached one
 * (chan_websocket: `MARK_MEDIA <id>` sent in line with the media, `MEDIA_MARK_PROCESSED <id>` once
 * Asterisk has played everything before it). What waits on a mark — an SSML mark's `mark` event,
 * a prompt's `playback.done` — runs at the peer's answer, so the application hears of it when the
 * caller did, not when the frames left (they go a lead ahead). Asterisk plays its queue in order:
 * an answer also settles every mark placed before it. An Asterisk too old for marks never answers;
 * then each mark settles {@link MARK_FALLBACK_MS} (plus the lead) after it was sent.
 */

/** When a peer that takes marks never answers one (an Asterisk too old for MARK_MEDIA), it settles this long after the lead. */
export const MARK_FALLBACK_MS = 5000;

interface Pending {
  readonly run: () => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

/** One prompt's marks on the peer; see the file comment. */
export class PeerMarks {
  private readonly pending = new Map<string, Pending>();

  constructor(
    /** Sends the mark after the media sent so far (the door's MARK_MEDIA). */
    private readonly send: (id: string) => void,
    /** A mark id unique in the call: the peer answers by id. */
    private readonly nextId: () => string,
    /** How long an unanswered mark waits before it settles anyway. */
    private readonly fallbackMs: number,
  ) {}

  /** Places a mark after what was sent; `run` runs once the peer has played it. */
  place(run: () => void): void {
    const id = this.nextId();
    const timer = setTimeout(() => this.processed(id), this.fallbackMs);
    this.pending.set(id, { run, timer });
    this.send(id);
  }

  /** The peer played mark `id` (and so every mark before it); false when it is not one of these. */
  processed(id: string): boolean {
    if (!this.pending.has(id)) return false;
    for (const key of [...this.pending.keys()]) {
      const mark = this.pending.get(key)!;
      this.pending.delete(key);
      clearTimeout(mark.timer);
      mark.run();
      if (key === id) break;
    }
    return true;
  }

  /** Forgets every mark not yet played (the prompt was stopped: what follows them was flushed). */
  drop(): void {
    for (const mark of this.pending.values()) clearTimeout(mark.timer);
    this.pending.clear();
  }
}
