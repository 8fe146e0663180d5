/**
 * One call (issue 41), whatever door it came through: the caller's audio transcribed live by the
 * live core (through its core contract, src/core/live.ts: the key's phrases and redaction floor,
 * finals cut by the file's segmentation rule so they equal REST's transcript of the same audio),
 * Sawt's speech played into it on command (./playback/player.ts), the events every watching
 * application socket gets, and both sides of the transcript (./transcript.ts).
 *
 * A call ends once, whatever ends it (the peer hanging up, a `hangup` command, `calls.max_call_s`,
 * no media for `calls.idle_timeout_s`, a failure, shutdown): playback stops, the caller's open
 * speech becomes its last final, `call.ended` goes to every watcher, and the service stores the
 * transcript and queues the webhook. Times in events are seconds since the call started.
 */
import type { ApiKeyRecord } from "../store/keys.ts";
import type { LiveEvent, TranscriptionLanguage } from "../core/asr.ts";
import type { LiveCall, OpenLiveCall } from "../core/live.ts";
import { AppError, toAppError } from "../errors/taxonomy.ts";
import type { CallCommand } from "./commands.ts";
import { type CallDoor, type CallEvent, type EndReason, errorEvent, startedEvent } from "./events.ts";
import type { CallFormat } from "./format.ts";
import { CallPlayer, type PlayerEvent, type PlayerSpeech } from "./playback/player.ts";
import type { CallOutput } from "./playback/prompt.ts";
import { CallTranscript } from "./transcript.ts";

/** How a door opens a call. */
export interface CallInit {
  /** The door's call id: the AudioSocket UUID, the chan_websocket channel_id, or externalMedia's. */
  readonly id: string;
  readonly door: CallDoor;
  /** The API key the call maps to: only it may watch, list or command the call. */
  readonly key: ApiKeyRecord;
  readonly format: CallFormat;
  /** Where the call's speech goes (the door's framing). */
  readonly output: CallOutput;
  /**
   * Lets the channel go when the call ends, whatever ended it: hangs it up on the door's wire
   * (AudioSocket's 0x00 frame, chan_websocket's HANGUP) unless the peer is gone, and frees the
   * door's socket or port. Called once; must be idempotent at the door.
   */
  readonly hangup: () => void;
  /** The voice a `say` without one speaks with. */
  readonly voice?: string;
  readonly language?: TranscriptionLanguage;
}

/** What a session needs from its service. */
export interface SessionHost {
  readonly openLive: OpenLiveCall;
  /** The player's speech: validation and the speech stream, bound to the call's key, door and format. */
  readonly speech: (init: CallInit, requestId: string) => PlayerSpeech;
  readonly partialIntervalMs: number;
  /** A frame sent after its slot, or a received frame handled late (metrics). */
  readonly late: (direction: "in" | "out") => void;
  /** How long a received frame waited until it was transcribed (metrics). */
  readonly frameHandled: (seconds: number) => void;
  /** The session ended (once): store, webhook, forget. */
  readonly ended: (session: CallSession, reason: EndReason) => void;
}

/** A received frame handled later than this after it arrived counts as late (the call fell behind real time). */
export const LATE_FRAME_MS = 200;
/**
 * Longest wait for the caller's last words to be transcribed once the call is over: a box behind
 * real time still finishes the call's transcript, a stuck engine does not hold the call for ever.
 */
const FINISH_TIMEOUT_MS = 15_000;
/** At shutdown the drain deadline has passed already: the last words get a moment, not more. */
const SHUTDOWN_FINISH_MS = 2000;

/** See the file comment. */
export class CallSession {
  readonly startedAt = Date.now();
  private readonly opened = performance.now();
  private readonly live: LiveCall;
  private readonly player: CallPlayer;
  private readonly transcript = new CallTranscript();
  private readonly watchers = new Set<(event: CallEvent) => void>();
  /** When the peer last sent media (performance.now()). */
  lastMedia = performance.now();
  /** Where the caller's audio starts on the call's clock, in seconds (set at the first frame). */
  private audioOffset: number | undefined;
  private ending: Promise<void> | undefined;
  /** Received frames handled late, and the worst wait of one (ms). */
  framesLate = 0;
  worstFrameMs = 0;
  reason: EndReason | undefined;

  constructor(
    readonly init: CallInit,
    private readonly host: SessionHost,
    requestId: string,
  ) {
    this.live = host.openLive(
      {
        door: init.door,
        requestId,
        key: init.key,
        onEvent: (event) => this.liveEvent(event),
        onEnd: (error) => {
          if (error) void this.end("error", error);
        },
      },
      init.format,
    );
    try {
      this.live.configure(
        {
          endpointing: "segments",
          turnDetection: null,
          partialIntervalMs: host.partialIntervalMs,
          ...(init.language ? { language: init.language } : {}),
        },
        init.format,
      );
    } catch (error) {
      // The key's phrase list over its bound (422): the slot the live call took is given back.
      this.live.abandon();
      throw error;
    }
    this.player = new CallPlayer({
      speech: host.speech(init, requestId),
      output: init.output,
      emit: (event) => this.playerEvent(event),
      now: () => this.nowMs(),
      onLate: () => host.late("out"),
    });
  }

  get id(): string {
    return this.init.id;
  }

  /** Whether the call is over or ending. */
  get over(): boolean {
    return this.ending !== undefined;
  }

  /** Milliseconds since the call started. */
  nowMs(): number {
    return performance.now() - this.opened;
  }

  /** The `call.started` event (a watcher gets it first, whenever it connects). */
  get started(): CallEvent {
    return startedEvent(this);
  }

  /** A frame of the caller's audio; its handling time is measured (the benchmark's lateness). */
  audio(bytes: Uint8Array): void {
    if (this.over) return;
    const arrived = performance.now();
    this.lastMedia = arrived;
    this.audioOffset ??= this.nowMs() / 1000;
    void this.live.audio(bytes).then(() => {
      const waited = performance.now() - arrived;
      this.host.frameHandled(waited / 1000);
      if (waited > this.worstFrameMs) this.worstFrameMs = waited;
      if (waited > LATE_FRAME_MS) {
        this.framesLate++;
        this.host.late("in");
      }
    });
  }

  /** The peer is there (a control message, a packet that carries no audio). */
  touch(): void {
    this.lastMedia = performance.now();
  }

  /** A DTMF digit from the caller. */
  dtmf(digit: string): void {
    if (this.over) return;
    this.touch();
    this.emit({ type: "dtmf", call_id: this.id, digit });
  }

  /** The peer played the mark Sawt placed as `id` (chan_websocket MEDIA_MARK_PROCESSED). */
  marked(id: string): void {
    this.player.marked(id);
  }

  /** The peer's queue is full (MEDIA_XOFF) or has room again (MEDIA_XON). */
  flow(on: boolean): void {
    if (on) this.player.resume();
    else this.player.pause();
  }

  /** Whether a prompt is playing or queued. */
  get speaking(): boolean {
    return this.player.busy;
  }

  /** Runs an application command now (commands run in arrival order); throws the AppError. */
  command(command: CallCommand): void {
    if (this.over) throw new AppError("not_found", "The call has ended");
    switch (command.type) {
      case "say":
        return this.player.say(command);
      case "text":
        return this.player.text(command);
      case "clear":
        return this.player.clear(command.context);
      case "hangup":
        void this.end("command");
    }
  }

  /** Adds a watcher (an application socket); returns its removal. It hears `call.started` first. */
  watch(listener: (event: CallEvent) => void): () => void {
    this.watchers.add(listener);
    listener(this.started);
    return () => this.watchers.delete(listener);
  }

  /** Ends the call (idempotent); resolves once its watchers heard `call.ended`. */
  end(reason: EndReason, error?: unknown): Promise<void> {
    this.ending ??= this.close(reason, error);
    return this.ending;
  }

  /** The transcript of both sides so far. */
  buildTranscript() {
    return this.transcript.build(Math.round(this.nowMs()) / 1000);
  }

  private async close(reason: EndReason, error: unknown): Promise<void> {
    this.reason = reason;
    if (error !== undefined) this.emit(errorEvent(toAppError(error), this.id));
    // The door lets the channel go (a peer that hung up is gone already): its socket or port is freed.
    this.init.hangup();
    this.player.close();
    // The caller's open speech becomes its last final (a hang-up mid-sentence is still transcribed).
    if (reason === "error") this.live.abandon();
    else {
      const finished = this.live.finish();
      const timer = Promise.withResolvers<void>();
      const timeout = setTimeout(() => timer.resolve(), reason === "shutdown" ? SHUTDOWN_FINISH_MS : FINISH_TIMEOUT_MS);
      await Promise.race([finished, timer.promise]);
      clearTimeout(timeout);
      this.live.abandon();
    }
    this.emit({ type: "call.ended", call_id: this.id, reason });
    this.watchers.clear();
    this.host.ended(this, reason);
  }

  private emit(event: CallEvent): void {
    for (const watcher of [...this.watchers]) watcher(event);
  }

  /** Seconds on the call's clock for seconds of the caller's audio. */
  private callTime(seconds: number): number {
    return Math.round(((this.audioOffset ?? 0) + seconds) * 1000) / 1000;
  }

  private liveEvent(event: LiveEvent): void {
    switch (event.type) {
      case "speech_started":
        return this.emit({ type: "speech.started", call_id: this.id, start: this.callTime(event.audioStartMs / 1000) });
      case "partial":
        if (event.text === "") return;
        return this.emit({
          type: "transcript.partial",
          call_id: this.id,
          text: event.text,
          dialect: event.dialect,
          channel: "caller",
          start: this.callTime(event.start),
          end: this.callTime(event.end),
        });
      case "final": {
        if (event.text.trim() === "") return;
        const words = event.words?.map((w) => ({
          word: w.word,
          start: this.callTime(w.start),
          end: this.callTime(w.end),
        }));
        const final = { ...event, start: this.callTime(event.start), end: this.callTime(event.end), words };
        this.transcript.caller(final);
        return this.emit({
          type: "transcript.final",
          call_id: this.id,
          text: event.text,
          words: words ?? [],
          dialect: event.dialect,
          channel: "caller",
          start: final.start,
          end: final.end,
          ...(event.redactions ? { redactions: event.redactions } : {}),
        });
      }
      case "error":
        // The session ends through onEnd with the same error.
        return;
    }
  }

  private playerEvent(event: PlayerEvent): void {
    if (event.type === "error") {
      this.emit(errorEvent(event.error, this.id, event.context));
      return;
    }
    if (event.type === "mark") {
      this.emit({ type: "mark", call_id: this.id, context: event.context, name: event.name });
      return;
    }
    if (event.startMs !== undefined && event.endMs !== undefined && event.msPlayed > 0)
      this.transcript.bot(event.text, event.startMs / 1000, event.endMs / 1000);
    this.emit({
      type: "playback.done",
      call_id: this.id,
      context: event.context,
      ms_played: event.msPlayed,
      ...(event.cleared ? { cleared: true } : {}),
    });
  }
}
