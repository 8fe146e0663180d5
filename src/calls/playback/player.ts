/**
 * What a call says (issue 41): prompts play one at a time in the order their commands arrived,
 * whichever socket or REST call sent them (./prompt.ts). A `say` is one prompt; `text` pieces of
 * a context are one prompt, a turn, that starts speaking as soon as its first sentence is whole
 * and ends at `flush` (prompts queued behind it wait for that). Each prompt ends with exactly one
 * `done` (heard in full, or cleared with how much was heard; a queued prompt cleared was heard
 * for 0 ms). `clear` stops the prompt playing within one frame (the door also flushes what its
 * peer queued), drops what is queued and stops their synthesis, of one context or of all; other
 * contexts play on. A peer whose queue is full (chan_websocket's MEDIA_XOFF) pauses the frames
 * until it has room again.
 *
 * The speech is the TTS speech stream's (./speech.ts): the call's codec, the voice resolved once
 * per context, sentence cutting, SSML marks (each a `mark` event when the caller heard it) and the
 * key's limits all come from there. A `say`'s fields are validated as every door's speech is
 * before anything is queued.
 */
import type { SpeechContextRequest, SpeechRequest, SpeechStream, SpeechStreamInit } from "../../core/tts.ts";
import { AppError, toAppError } from "../../errors/taxonomy.ts";
import { DEFAULT_CONTEXT, type SayCommand, type TextCommand } from "../commands.ts";
import { ssmlText } from "../transcript.ts";
import { type CallOutput, Prompt, type PromptEnd } from "./prompt.ts";
import { CallSpeech } from "./speech.ts";

/** What the player reports. */
export type PlayerEvent =
  | ({ readonly type: "done"; readonly context: string; readonly text: string } & PromptEnd)
  | { readonly type: "mark"; readonly context: string; readonly name: string }
  | { readonly type: "error"; readonly context: string; readonly error: AppError };

/** The call's speech, bound to its key, door and codec (the call service builds it). */
export interface PlayerSpeech {
  /** Validates a `say`'s speech fields into a request in the call's codec; throws the AppError. */
  request(fields: { input: string; voice?: string; dialect?: string }): SpeechRequest;
  /** Validates a `text` context's settings (the call's codec); throws the AppError. */
  settings(fields: { voice?: string; dialect?: string }): SpeechContextRequest;
  /** Opens the call's speech stream; throws the AppError (503 while TTS cannot serve). */
  open(init: Pick<SpeechStreamInit, "onEvent" | "onEnd">): SpeechStream;
}

/** What a player is built from. */
export interface PlayerDeps {
  readonly output: CallOutput;
  readonly speech: PlayerSpeech;
  readonly emit: (event: PlayerEvent) => void;
  /** Milliseconds since the call started. */
  readonly now: () => number;
  /** A frame left after its slot (metrics). */
  readonly onLate: () => void;
}

/** See the file comment. */
export class CallPlayer {
  private readonly queue: Prompt[] = [];
  private current: Prompt | undefined;
  private readonly speech: CallSpeech;
  private paused = false;
  private closed = false;
  private marks = 0;

  constructor(private readonly deps: PlayerDeps) {
    this.speech = new CallSpeech({
      open: (init) => deps.speech.open(init),
      failed: (context, error) => deps.emit({ type: "error", context, error }),
    });
  }

  /** Whether a prompt is playing or queued. */
  get busy(): boolean {
    return this.current !== undefined || this.queue.length > 0;
  }

  /** Queues a prompt; throws the AppError (422, 400, 429, 503) when it cannot be spoken. */
  say(command: SayCommand): void {
    this.assertOpen();
    const context = command.context ?? DEFAULT_CONTEXT;
    const { input, ...settings } = this.deps.speech.request({
      input: command.text ?? command.ssml ?? "",
      voice: command.voice,
      dialect: command.dialect,
    });
    const prompt = this.prompt(context, command.ssml !== undefined ? ssmlText(input) : input);
    this.speech.say(context, settings, input, prompt);
    this.enqueue(prompt);
  }

  /** Adds streamed text to its context's turn (queued as a prompt at its first words); `flush` ends the turn. */
  text(command: TextCommand): void {
    this.assertOpen();
    const context = command.context ?? DEFAULT_CONTEXT;
    const settings = () => this.deps.speech.settings({ voice: command.voice, dialect: command.dialect });
    const started = this.speech.text(context, settings, command.text, command.flush === true, () =>
      this.prompt(context, ""),
    );
    if (started) this.enqueue(started);
  }

  /** Barge-in: stops what plays (of `context`, when named) within one frame and drops what is queued. */
  clear(context?: string): void {
    const matches = (prompt: Prompt) => context === undefined || prompt.context === context;
    const current = this.current;
    if (current && matches(current)) {
      // The frames stop first: synthesis is let go after.
      this.current = undefined;
      const end = current.stop(this.deps.now());
      this.deps.output.flush?.();
      this.done(current, end);
    }
    this.speech.clear(context);
    const dropped = this.queue.filter(matches);
    this.queue.splice(0, this.queue.length, ...this.queue.filter((p) => !matches(p)));
    for (const prompt of dropped) this.done(prompt, prompt.stop(this.deps.now()));
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

  /** The peer played the mark `id` (chan_websocket MEDIA_MARK_PROCESSED). */
  marked(id: string): void {
    this.current?.processed(id);
  }

  /** The call ended: what plays stops, what is queued is dropped (each still reports its done). */
  close(): void {
    if (this.closed) return;
    this.clear();
    this.closed = true;
    this.speech.end();
  }

  private assertOpen(): void {
    if (this.closed) throw new AppError("bad_request", "The call has ended");
  }

  private prompt(context: string, text: string): Prompt {
    return new Prompt(context, text, {
      mark: (name) => this.deps.emit({ type: "mark", context, name }),
      markId: () => `${context}#${++this.marks}`,
    });
  }

  private enqueue(prompt: Prompt): void {
    this.queue.push(prompt);
    this.next();
  }

  private next(): void {
    if (this.current || this.closed) return;
    const prompt = this.queue.shift();
    if (!prompt) return;
    this.current = prompt;
    if (this.paused) prompt.pause();
    prompt.play(this.deps.output, this.deps.now, this.deps.onLate).then(
      (end) => this.finished(prompt, end),
      (error) => {
        this.deps.emit({ type: "error", context: prompt.context, error: toAppError(error) });
        this.finished(prompt, prompt.stop(this.deps.now()));
      },
    );
  }

  private finished(prompt: Prompt, end: PromptEnd): void {
    if (this.current !== prompt) return; // stopped: its done was reported by the clear
    this.current = undefined;
    this.done(prompt, end);
    this.next();
  }

  private done(prompt: Prompt, end: PromptEnd): void {
    this.deps.emit({ type: "done", context: prompt.context, text: prompt.text, ...end });
  }
}
