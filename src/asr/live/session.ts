/**
 * The live core's intake, what every live door (gRPC StreamingRecognize, the realtime WebSocket,
 * jambonz, …) runs a call through once its wire format is parsed: the ASR engine's readiness gate
 * and a stream slot (src/edge/stream-slots.ts), the call scope (one log line per session), audio
 * decoding to 16 kHz (src/audio/live-input.ts), one serial queue of operations over the live
 * transcriber (./transcriber.ts, opened through the service's `openLive`), and the limits:
 * session length (`streaming.max_session_s`, audio and wall clock), idle timeout, and bounded
 * buffering (`streaming.max_buffer_s` of audio waiting to be processed). A limit, a failure or
 * the client going away ends the session once: an `error` event (for a failure or a limit), slot
 * released, work aborted, `onEnd` called. A door adapts the events (`onEvent`) to its wire.
 *
 * An interleaved multi-channel stream (`format.channels`, issue #27) is de-interleaved and each
 * channel decoded to 16 kHz on its own (src/audio/live-channels.ts); each channel runs its own live
 * transcription (its own endpointer, call dialect and memory reservation), and their events carry
 * `channel` and `speaker` (`speakers`, `asr.speakers`, `ch<n>`). Commit, clear and finish apply to
 * every channel; a mono stream's events stay unlabelled. With `format.mix` the channels are heard
 * as one stream, their mean.
 *
 * The key's policy is applied here, for every door (../policy.ts): the key's phrase list is added
 * to what the call asked for, and written forms and redaction (issue #27) — what the call asked,
 * over the server's floor `asr.redact` — to each channel's events (../format/live.ts). A door only
 * passes what its wire asked for, so none can forget them.
 *
 * A session whose utterances the endpointer cuts hears missing audio as silence on the wall clock
 * (./silence-clock.ts): a caller that stops sending still gets its final.
 */
import { LiveChannelsInput, type LiveChannelsFormat } from "../../audio/live-channels.ts";
import type { LiveEvent, LiveTranscription, LiveTranscriptionOptions } from "../../core/asr.ts";
import type { AppContext } from "../../core/context.ts";
import { AppError, toAppError } from "../../errors/taxonomy.ts";
import type { StreamDoor } from "../../serving/metrics.ts";
import type { ApiKeyRecord } from "../../store/keys.ts";
import { readyService } from "../../edge/readiness.ts";
import { openScope, type CallScope } from "../../edge/scope.ts";
import { acquireStreamSlot, type StreamSlot } from "../../edge/stream-slots.ts";
import { speakerOf } from "../../transcripts/labels.ts";
import { LiveFormatter } from "../format/live.ts";
import { formats } from "../format/units.ts";
import { asrPolicyOf } from "../policy.ts";
import { SilenceClock } from "./silence-clock.ts";

/** How a door opens a session. */
export interface LiveSessionInit {
  readonly door: StreamDoor;
  readonly requestId: string;
  /**
   * The caller: a key the session admits in a scope of its own (a WebSocket door, whose upgrade
   * was authenticated), or the door's own scope, already authenticated and admitted, which the
   * door finishes (a gRPC call).
   */
  readonly caller: { readonly key: ApiKeyRecord } | { readonly scope: CallScope };
  /** Every engine event, in order. */
  readonly onEvent: (event: LiveEvent) => void;
  /** The session ended: `error` says why when it was not a normal end or the client leaving. */
  readonly onEnd: (error: AppError | undefined) => void;
}

/** See the file comment. Open with {@link openLiveSession}. */
export class LiveSession {
  private readonly scope: CallScope;
  /** Whether the session opened its scope (then it finishes it) or runs in its door's. */
  private readonly ownScope: boolean;
  private readonly slot: StreamSlot;
  private readonly limits: AppContext["config"]["streaming"];
  private input: LiveChannelsInput;
  /** One live transcription per channel; empty until configured. */
  private lives: LiveTranscription[] = [];
  /** Per channel, written forms and redaction of its events (when the call asks for them). */
  private formatters: LiveFormatter[] = [];
  private queue: Promise<void> = Promise.resolve();
  private queuedBytes = 0;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly sessionTimer: ReturnType<typeof setTimeout>;
  private ended = false;
  /** When the operation being processed arrived (final latency is measured from it). */
  private arrivedAt = 0;
  /** Missing audio as silence on the wall clock, for endpointed calls. */
  private readonly silence = new SilenceClock((ms) => this.fillSilence(ms));

  constructor(
    private readonly ctx: AppContext,
    private readonly init: LiveSessionInit,
    format: LiveChannelsFormat,
  ) {
    this.limits = ctx.config.streaming;
    const { caller } = init;
    this.ownScope = "key" in caller;
    this.scope =
      "key" in caller
        ? openScope(ctx, { event: init.door, method: `asr.${init.door}`, requestId: init.requestId })
        : caller.scope;
    try {
      if ("key" in caller) this.scope.admit(caller.key);
      readyService(ctx, "asr");
      this.slot = acquireStreamSlot(ctx, init.door);
    } catch (error) {
      if (this.ownScope) this.scope.finish(String(toAppError(error).status), error);
      throw error;
    }
    this.input = new LiveChannelsInput(format);
    this.sessionTimer = setTimeout(() => this.fail(this.tooLong()), this.limits.max_session_s * 1000);
    this.touch();
  }

  /** The call's signal: aborted when the session ends. */
  get signal(): AbortSignal {
    return this.scope.signal;
  }

  /**
   * Starts (or restarts, after a configuration change) the engine's live transcription of each
   * channel, with the key's policy. A phrase list over the bound with the key's is thrown here (422).
   */
  configure(asked: LiveTranscriptionOptions, format: LiveChannelsFormat): void {
    const policy = asrPolicyOf(this.ctx);
    const hotwords = policy.hotwords(this.scope.keyId, asked.hotwords);
    const formatting = policy.formatting(asked.formatting);
    const options = { ...asked, hotwords };
    this.enqueue(0, async () => {
      for (const live of this.lives) await live.finish();
      for (const formatter of this.formatters) formatter.flush();
      const current = this.input.format;
      if (
        format.encoding !== current.encoding ||
        format.sampleRate !== current.sampleRate ||
        (format.channels ?? 1) !== this.input.channels ||
        (format.mix ?? false) !== (this.input.format.mix ?? false)
      ) {
        this.input = new LiveChannelsInput(format);
      }
      const asr = readyService(this.ctx, "asr");
      // Only an endpointer needs silence to end an utterance; a client that commits decides itself.
      this.silence.enabled = options.endpointing === "segments" || options.turnDetection !== null;
      const count = this.input.outputs;
      this.formatters = [];
      this.lives = Array.from({ length: count }, (_, channel) => {
        const label = { channel, speaker: speakerOf(channel, options.speakers, this.ctx.config.asr.speakers) };
        const labelled = (event: LiveEvent) =>
          this.forward(count > 1 && event.type !== "error" ? { ...event, ...label } : event);
        // Every live door gets written forms and redaction here, from one place (../format/live.ts).
        const formatter = formats(formatting) ? new LiveFormatter(formatting, labelled) : null;
        if (formatter) this.formatters.push(formatter);
        const formatted = formatter ? (event: LiveEvent) => formatter.event(event) : labelled;
        // A door matching the caller's own grammars (MRCP) matches the recogniser's words.
        const emit = options.grammarMatching
          ? (event: LiveEvent) => formatted(event.type === "final" ? { ...event, unformatted: event.text } : event)
          : formatted;
        return asr.openLive(options, emit, this.scope.options);
      });
    });
  }

  /**
   * Queues audio bytes; refuses (ending the session) beyond the buffering or session limits. The
   * promise settles once these bytes are transcribed: a door that can hold its client back (gRPC's
   * flow control) awaits it before reading more; a WebSocket door cannot, so it relies on the limit.
   */
  audio(bytes: Uint8Array): Promise<void> {
    this.touch();
    if (this.ended || bytes.length === 0) return this.queue;
    const perSecond = this.input.bytesPerSecond;
    if (this.input.secondsIn + (this.queuedBytes + bytes.length) / perSecond > this.limits.max_session_s) {
      this.fail(this.tooLong());
      return this.queue;
    }
    if ((this.queuedBytes + bytes.length) / perSecond > this.limits.max_buffer_s) {
      this.fail(
        new AppError(
          "payload_too_large",
          `Audio is arriving faster than it can be transcribed: more than ${this.limits.max_buffer_s} s are waiting`,
        ),
      );
      return this.queue;
    }
    this.silence.frame((bytes.length / perSecond) * 1000);
    return this.enqueue(bytes.length, async () => {
      try {
        const channels = this.input.push(bytes);
        this.ctx.metrics.observeStreamAudio(this.init.door, bytes.length / perSecond);
        await this.transcribe(channels);
      } finally {
        this.silence.transcribed();
      }
    });
  }

  /** Queues `ms` of silence for every channel (the wall clock's, ./silence-clock.ts). */
  private fillSilence(ms: number): void {
    if (this.ended || this.lives.length === 0) return;
    void this.enqueue(0, () => this.transcribe(this.input.silence(ms)));
  }

  private async transcribe(channels: readonly Float32Array[]): Promise<void> {
    const lives = this.requireLive();
    for (const [channel, samples] of channels.entries()) if (samples.length > 0) await lives[channel]!.push(samples);
    // A final held for an open number is not held for ever (../format/live.ts).
    for (const formatter of this.formatters) formatter.tick(this.input.secondsIn);
  }

  /**
   * Ends the open utterance now (a client commit). Errors go to `onError` and leave the session
   * open. `around` hears when the commit's turn in the queue begins and ends, so a door can tell
   * the events it caused (Deepgram's `from_finalize`) from those of the audio before it.
   */
  commit(
    onError: (error: AppError) => void,
    around: { readonly begin?: () => void; readonly end?: () => void } = {},
  ): void {
    this.touch();
    this.enqueue(
      0,
      async () => {
        around.begin?.();
        try {
          // Interleaved channels hold the same audio, so they commit (or refuse a short buffer) alike.
          for (const live of this.requireLive()) await live.commit();
        } finally {
          around.end?.();
        }
      },
      onError,
    );
  }

  /** Drops uncommitted audio. */
  clear(then: () => void): void {
    this.touch();
    this.enqueue(0, async () => {
      for (const live of this.requireLive()) live.clear();
      then();
    });
  }

  /** Any client message: the session is not idle. */
  touch(): void {
    if (this.ended) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(
      () => this.fail(new AppError("timeout", `No audio or event for ${this.limits.idle_timeout_s} s: session closed`)),
      this.limits.idle_timeout_s * 1000,
    );
  }

  /** Processes what is queued, closes open speech as a final, then ends the session normally. */
  finish(): Promise<void> {
    this.touch();
    return this.enqueue(0, async () => {
      const tails = this.input.flush();
      const lives = this.requireLive();
      for (const [channel, tail] of tails.entries()) if (tail.length > 0) await lives[channel]!.push(tail);
      for (const live of lives) await live.finish();
      for (const formatter of this.formatters) formatter.flush();
      this.end(undefined, "200");
    });
  }

  /**
   * The door found the client breaking its protocol (a frame out of order, an unknown message):
   * the session ends as for any failure, `error` reported and logged under its status.
   */
  refuse(error: AppError): void {
    this.fail(error);
  }

  /** The client went away: abort everything now, release the slot. */
  abandon(): void {
    if (this.ended) return;
    this.scope.cancel();
    this.end(undefined, "499");
  }

  private requireLive(): readonly LiveTranscription[] {
    if (this.lives.length === 0) throw new AppError("bad_request", "The session is not configured");
    return this.lives;
  }

  private forward(event: LiveEvent): void {
    if (this.ended) return;
    if (event.type === "final")
      this.ctx.metrics.observeFinalLatency(this.init.door, (performance.now() - this.arrivedAt) / 1000);
    this.init.onEvent(event);
  }

  /** Runs `job` after everything queued; the promise never rejects (a failure ends the session). */
  private enqueue(bytes: number, job: () => Promise<void>, onError?: (error: AppError) => void): Promise<void> {
    this.queuedBytes += bytes;
    const arrived = performance.now();
    this.queue = this.queue.then(async () => {
      this.queuedBytes -= bytes;
      if (this.ended) return;
      this.arrivedAt = arrived;
      try {
        await job();
      } catch (error) {
        if (this.ended) return;
        const appError = toAppError(error);
        if (onError && appError.kind === "bad_request") onError(appError);
        else this.fail(error);
      }
    });
    return this.queue;
  }

  private tooLong(): AppError {
    return new AppError("payload_too_large", `The session exceeded its ${this.limits.max_session_s} s limit`);
  }

  private fail(error: unknown): void {
    if (this.ended) return;
    const appError = toAppError(error);
    this.end(appError, String(appError.status), error);
  }

  private end(error: AppError | undefined, code: string, thrown?: unknown): void {
    if (this.ended) return;
    if (error) this.init.onEvent({ type: "error", error });
    this.ended = true;
    this.silence.cancel();
    clearTimeout(this.idleTimer);
    clearTimeout(this.sessionTimer);
    this.slot.release();
    if (this.ownScope) {
      this.scope.finish(code, thrown);
      // Work still queued or running for this session stops here.
      if (!this.scope.signal.aborted) this.scope.cancel();
    }
    this.init.onEnd(error);
  }
}

/** Opens a live session: key admitted (rate limit), engine ready, a slot free; throws the AppError otherwise. */
export function openLiveSession(ctx: AppContext, init: LiveSessionInit, format: LiveChannelsFormat): LiveSession {
  return new LiveSession(ctx, init, format);
}
