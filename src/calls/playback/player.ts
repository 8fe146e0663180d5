/**
 * What a call says (issue 41): prompts queue in the order their commands arrived, whichever
 * socket or REST call sent them, and play one at a time (./prompt.ts). Each prompt ends with
 * exactly one `done` (heard in full, or cleared with how much was heard; a prompt dropped from the
 * queue by a clear was heard for 0 ms). `say` is one prompt; `text` pieces are cut into sentences
 * (./sentences.ts), each spoken as soon as it is whole, and `flush` speaks the rest. `clear` stops
 * the prompt playing within one frame (the door flushes what its peer queued) and drops what is
 * queued, of one context or of all. A peer whose queue is full (chan_websocket's MEDIA_XOFF)
 * pauses the frames until it has room again.
 *
 * Speech comes from the TTS contract main has (src/core/tts.ts `synthesizeEncodedStream`, SSML
 * included), validated as every door's speech is (core/speech-parser.ts). The streaming-text core
 * (issue 40) will take `text`, `flush`, `clear` and SSML marks over; this class is the seam: its
 * commands and its events are what the call session sees.
 */
import type { EncodedSpeechStream, SpeechRequest } from "../../core/tts.ts";
import { AppError, toAppError } from "../../errors/taxonomy.ts";
import { DEFAULT_CONTEXT, type SayCommand, type TextCommand } from "../commands.ts";
import { ssmlText } from "../transcript.ts";
import { type CallOutput, Prompt, type PromptEnd } from "./prompt.ts";
import { SentenceBuffer } from "./sentences.ts";

/** What the player reports. */
export type PlayerEvent =
  | ({ readonly type: "done"; readonly context: string; readonly text: string } & PromptEnd)
  | { readonly type: "error"; readonly context: string; readonly error: AppError };

/** What a player is built from. */
export interface PlayerDeps {
  readonly output: CallOutput;
  /** Validates a prompt's speech fields into a request (the call's format already in them); throws the AppError. */
  readonly request: (fields: { input: string; voice?: string; dialect?: string }) => SpeechRequest;
  /** Starts a synthesis (the TTS service's streaming path). */
  readonly synthesize: (request: SpeechRequest, signal: AbortSignal) => Promise<EncodedSpeechStream>;
  readonly emit: (event: PlayerEvent) => void;
  /** Milliseconds since the call started. */
  readonly now: () => number;
  /** A frame left after its slot (metrics). */
  readonly onLate: () => void;
  /** Most text a context may hold waiting for its sentence's end (`tts.max_input_chars`). */
  readonly maxPendingChars: number;
}

/** A context's streamed text and the voice its sentences are spoken with. */
interface TextContext {
  readonly buffer: SentenceBuffer;
  readonly voice?: string;
  readonly dialect?: string;
}

/** See the file comment. */
export class CallPlayer {
  private readonly queue: Prompt[] = [];
  private current: Prompt | undefined;
  private readonly texts = new Map<string, TextContext>();
  private paused = false;
  private closed = false;
  private marks = 0;

  constructor(private readonly deps: PlayerDeps) {}

  /** Whether a prompt is playing or queued. */
  get busy(): boolean {
    return this.current !== undefined || this.queue.length > 0;
  }

  /** Queues a prompt; throws the AppError (422, 400, 503) when it cannot be spoken. */
  say(command: SayCommand): void {
    const input = command.text ?? command.ssml ?? "";
    const text = command.ssml !== undefined ? ssmlText(command.ssml) : input;
    this.enqueue(command.context ?? DEFAULT_CONTEXT, { input, voice: command.voice, dialect: command.dialect }, text);
  }

  /** Adds streamed text to its context; whole sentences (all of it, with `flush`) are queued as prompts. */
  text(command: TextCommand): void {
    const context = command.context ?? DEFAULT_CONTEXT;
    let state = this.texts.get(context);
    if (!state) {
      state = { buffer: new SentenceBuffer(), voice: command.voice, dialect: command.dialect };
      this.texts.set(context, state);
    }
    if (state.buffer.length + command.text.length > this.deps.maxPendingChars)
      throw new AppError(
        "bad_request",
        `Text waiting for its sentence's end is over ${this.deps.maxPendingChars} characters: flush it`,
      );
    const sentences = state.buffer.push(command.text);
    const rest = command.flush ? state.buffer.flush() : undefined;
    for (const sentence of rest === undefined ? sentences : [...sentences, rest])
      this.enqueue(context, { input: sentence, voice: state.voice, dialect: state.dialect }, sentence);
  }

  /** Barge-in: stops what plays (of `context`, when named) within one frame and drops what is queued. */
  clear(context?: string): void {
    const matches = (prompt: Prompt) => context === undefined || prompt.context === context;
    for (const [name, state] of this.texts) if (context === undefined || name === context) state.buffer.flush();
    const dropped = this.queue.filter(matches);
    this.queue.splice(0, this.queue.length, ...this.queue.filter((p) => !matches(p)));
    const current = this.current;
    if (current && matches(current)) {
      this.current = undefined;
      const end = current.stop(this.deps.now());
      this.deps.output.flush?.();
      this.done(current, end);
    }
    for (const prompt of dropped) this.done(prompt, { msPlayed: 0, cleared: true });
    this.next();
  }

  /** The peer's play-out queue is full (chan_websocket MEDIA_XOFF): frames wait. */
  pause(): void {
    this.paused = true;
    this.current?.pause();
  }

  /** The peer has room again (MEDIA_XON). */
  resume(): void {
    this.paused = false;
    this.current?.resume();
  }

  /** The peer played the mark named `name` (chan_websocket MEDIA_MARK_PROCESSED). */
  marked(name: string): void {
    if (this.current?.markName === name) this.current.marked();
  }

  /** The call ended: what plays stops, what is queued is dropped (each still reports its done). */
  close(): void {
    if (this.closed) return;
    this.clear();
    this.closed = true;
  }

  private enqueue(context: string, fields: { input: string; voice?: string; dialect?: string }, text: string): void {
    if (this.closed) throw new AppError("bad_request", "The call has ended");
    const request = this.deps.request(fields);
    this.queue.push(new Prompt(context, request, text, `${context}#${++this.marks}`));
    this.next();
  }

  private next(): void {
    if (this.current || this.closed) return;
    const prompt = this.queue.shift();
    if (!prompt) return;
    this.current = prompt;
    if (this.paused) prompt.pause();
    prompt.play(this.deps.output, this.deps.synthesize, this.deps.now, this.deps.onLate).then(
      (end) => this.finished(prompt, end),
      (error) => {
        if (this.current !== prompt) return; // stopped: its done was reported by the clear
        this.current = undefined;
        this.deps.emit({ type: "error", context: prompt.context, error: toAppError(error) });
        this.done(prompt, { msPlayed: 0, cleared: false });
        this.next();
      },
    );
  }

  private finished(prompt: Prompt, end: PromptEnd): void {
    if (this.current !== prompt) return;
    this.current = undefined;
    this.done(prompt, end);
    this.next();
  }

  private done(prompt: Prompt, end: PromptEnd): void {
    this.deps.emit({ type: "done", context: prompt.context, text: prompt.text, ...end });
  }
}
