/**
 * A speech stream (core/tts.ts `SpeechStream`): the contexts of one socket or call and the rules
 * every door gets from here rather than from itself — at most `tts.stream_max_contexts` contexts,
 * one request of the key's rate limit per context, the queued-text limit, and an idle time after
 * which the stream ends itself (`onEnd`). Each context writes one log line when it ends (D18: who,
 * which voice, how much, how fast; never the text).
 */
import type {
  AudioSent,
  SpeechContextInfo,
  SpeechContextRequest,
  SpeechStream,
  SpeechStreamEvent,
  SpeechStreamInit,
} from "../../core/tts.ts";
import { AppError } from "../../errors/taxonomy.ts";
import { type ContextOutcome, SpeechContext } from "./context.ts";
import type { StreamEngine } from "./engine.ts";

/** Longest context id a door may name (ElevenLabs' ids are client strings). */
const MAX_CONTEXT_ID = 128;

/** See the file comment; the TTS service opens one per socket or call. */
export class SpeechStreamSession implements SpeechStream {
  private readonly contexts = new Map<string, SpeechContext>();
  private readonly ending = Promise.withResolvers<void>();
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private ended = false;
  private readonly idleMs: number;
  readonly closed: Promise<void>;

  constructor(
    private readonly engine: StreamEngine,
    private readonly init: SpeechStreamInit,
  ) {
    this.closed = this.ending.promise;
    const asked = init.idleSeconds === undefined ? Number.POSITIVE_INFINITY : init.idleSeconds * 1000;
    this.idleMs = Math.min(engine.limits.idleMs, asked);
    this.touch();
  }

  open(id: string, request: SpeechContextRequest): SpeechContextInfo {
    this.assertLive();
    this.touch();
    if (id.length === 0 || id.length > MAX_CONTEXT_ID)
      throw new AppError("bad_request", `A context id has 1 to ${MAX_CONTEXT_ID} characters`);
    if (this.contexts.has(id)) throw new AppError("bad_request", `Context ${id} is already open`);
    const max = this.engine.limits.maxContexts;
    if (this.contexts.size >= max)
      throw new AppError("bad_request", `Too many contexts: at most ${max} open at once on one stream`);
    this.engine.admit?.(this.init.key);
    const voice = this.engine.voice(request, this.init.key.id);
    const started = performance.now();
    const context = new SpeechContext(id, voice, request, this.engine, {
      emit: (event) => this.emit(event),
      ended: (outcome) => this.forget(context, outcome, started),
    });
    this.contexts.set(id, context);
    return context.info;
  }

  text(id: string, text: string): void {
    this.context(id).text(text);
  }

  flush(id: string): void {
    this.context(id).flush();
  }

  clear(id: string): AudioSent {
    return this.context(id).clear();
  }

  close(id: string, options: { readonly dropUnflushed?: boolean } = {}): void {
    this.context(id).close(options.dropUnflushed === true);
  }

  has(id: string): boolean {
    return this.contexts.has(id);
  }

  touch(): void {
    if (this.ended) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.idle(), this.idleMs);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.idleTimer);
    const contexts = [...this.contexts.values()];
    for (const context of contexts) context.end();
    void Promise.all(contexts.map((context) => context.settled())).then(() => this.ending.resolve());
  }

  private context(id: string): SpeechContext {
    this.assertLive();
    this.touch();
    const context = this.contexts.get(id);
    if (!context) throw new AppError("bad_request", `Context ${id} is not open`);
    return context;
  }

  private assertLive(): void {
    if (this.ended) throw new AppError("bad_request", "The speech stream has ended");
  }

  private emit(event: SpeechStreamEvent): void | Promise<void> {
    if (this.ended) return;
    this.touch();
    return this.init.onEvent(event);
  }

  /** Nothing came and nothing was spoken for the idle time: the stream ends itself. */
  private idle(): void {
    if ([...this.contexts.values()].some((context) => context.busy)) {
      this.touch();
      return;
    }
    const seconds = Math.round(this.idleMs / 1000);
    this.end();
    this.init.onEnd?.(new AppError("timeout", `No text for ${seconds} s: the speech stream was closed`));
  }

  private forget(context: SpeechContext, outcome: ContextOutcome, started: number): void {
    if (this.contexts.get(context.id) === context) this.contexts.delete(context.id);
    const { voice, engine } = context.info;
    this.engine.log.info("speech context", {
      door: this.init.door,
      request_id: this.init.requestId,
      key_id: this.init.key.id,
      voice,
      engine,
      outcome,
      sentences: context.sentences,
      audio_seconds: Number(context.audioSeconds.toFixed(3)),
      synth_seconds: Number(context.synthSeconds.toFixed(3)),
      ms: Math.round(performance.now() - started),
    });
  }
}
