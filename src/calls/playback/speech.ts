/**
 * A call's speech stream (src/core/tts.ts `SpeechStream`: voice resolution D1–D5, the key's rate
 * limit and lexicon, sentence cutting, SSML marks, clear), opened at the first command that speaks
 * and again after it ended itself for idleness, and the stream contexts the call's context names
 * speak through.
 *
 * A call context name speaks through one stream context (a line) while it has prompts being
 * synthesised: a `say` is its text (or SSML document) and a flush; `text` pieces are the stream's
 * pieces, a turn that ends at `flush`. A line's settings are the call's codec and the voice and
 * dialect of the command that opened it; a `say`, or a new turn, naming another voice or dialect
 * starts a new line (the old one finishes what it has). A line with nothing left to synthesise is
 * closed, so a call holds at most `tts.stream_max_contexts` names speaking at once, whichever names
 * it uses over time. A line's events go to its prompts in order: audio and marks to the first
 * prompt not yet flushed, whose audio `flushed` completes.
 */
import type { SpeechContextRequest, SpeechStream, SpeechStreamEvent, SpeechStreamInit } from "../../core/tts.ts";
import type { AppError } from "../../errors/taxonomy.ts";
import type { Prompt } from "./prompt.ts";

/** What the call's speech needs: the stream (bound to the call's key and door) and where a failure goes. */
export interface CallSpeechDeps {
  /** Opens the call's stream; throws the AppError (503 while TTS cannot serve). */
  readonly open: (init: Pick<SpeechStreamInit, "onEvent" | "onEnd">) => SpeechStream;
  /** A line failed: its prompts end with the audio they had. */
  readonly failed: (context: string, error: AppError) => void;
}

/** One stream context of a call context name. */
interface Line {
  readonly id: string;
  readonly name: string;
  /** The voice and dialect it speaks with. */
  readonly signature: string;
  /** Its prompts whose audio has not all come, in order. */
  readonly filling: Prompt[];
  /** The `text` turn taking pieces, if one is. */
  turn?: Prompt;
  /** Closed: it speaks what it has, then ends. */
  closing?: boolean;
}

const signatureOf = (settings: SpeechContextRequest) => `${settings.voice}\n${settings.dialect ?? ""}`;

/** See the file comment. */
export class CallSpeech {
  private stream: SpeechStream | undefined;
  /** Every line with events still to come, by stream context id. */
  private readonly lines = new Map<string, Line>();
  /** The line each name's next prompt joins. */
  private readonly speaking = new Map<string, Line>();
  private opened = 0;

  constructor(private readonly deps: CallSpeechDeps) {}

  /** Speaks `input` (text or an SSML document) as `prompt` in `name`, after what the name has queued; throws the AppError. */
  say(name: string, settings: SpeechContextRequest, input: string, prompt: Prompt): void {
    const line = this.line(name, settings);
    this.endTurn(line);
    // Listed first: the stream may report its first mark before text() returns.
    line.filling.push(prompt);
    try {
      this.stream!.text(line.id, input);
      this.stream!.flush(line.id);
    } catch (error) {
      this.unlist(line, prompt);
      throw error;
    }
  }

  /**
   * Adds a piece to the name's turn, starting one (with `start`'s prompt, the settings read then)
   * when none is open; `flush` ends the turn. Returns the prompt it started; throws the AppError.
   */
  text(
    name: string,
    settings: () => SpeechContextRequest,
    piece: string,
    flush: boolean,
    start: () => Prompt,
  ): Prompt | undefined {
    const open = this.speaking.get(name);
    // Whitespace or a flush with no turn open says nothing.
    if (!open?.turn && piece.trim() === "") return undefined;
    const line = open?.turn ? open : this.line(name, settings());
    const started = line.turn ? undefined : start();
    if (started) {
      line.filling.push(started);
      line.turn = started;
    }
    const turn = line.turn!;
    try {
      this.stream!.text(line.id, piece);
    } catch (error) {
      if (started) this.unlist(line, started);
      throw error;
    }
    turn.append(piece);
    if (flush) this.endTurn(line);
    return started;
  }

  /** Stops the synthesis of `name` (of every name when none is given) and drops its queued text. */
  clear(name?: string): void {
    for (const line of [...this.lines.values()]) {
      if (name !== undefined && line.name !== name) continue;
      if (this.stream?.has(line.id)) this.stream.clear(line.id);
      line.filling.length = 0;
      line.turn = undefined;
      this.idle(line);
    }
  }

  /** The call ended: the stream stops at once and reports nothing more. */
  end(): void {
    this.stream?.end();
    this.stream = undefined;
    this.lines.clear();
    this.speaking.clear();
  }

  /** The name's line for `settings`: the one speaking if it speaks with them, else a new one. */
  private line(name: string, settings: SpeechContextRequest): Line {
    this.stream ??= this.deps.open({ onEvent: (event) => this.event(event), onEnd: () => this.ended() });
    const signature = signatureOf(settings);
    const open = this.speaking.get(name);
    if (open && open.signature === signature && this.stream.has(open.id)) return open;
    const id = `${name}/${++this.opened}`;
    this.stream.open(id, settings);
    // Another voice or dialect: the old line finishes what it has, then ends.
    if (open) this.retire(open);
    const line: Line = { id, name, signature, filling: [] };
    this.lines.set(id, line);
    this.speaking.set(name, line);
    return line;
  }

  private endTurn(line: Line): void {
    if (!line.turn) return;
    line.turn = undefined;
    this.stream?.flush(line.id);
  }

  /** Takes back a prompt the stream refused. */
  private unlist(line: Line, prompt: Prompt): void {
    const at = line.filling.indexOf(prompt);
    if (at >= 0) line.filling.splice(at, 1);
    if (line.turn === prompt) line.turn = undefined;
    this.idle(line);
  }

  /** Closes a line with nothing left to synthesise: the name's next prompt opens a new one. */
  private idle(line: Line): void {
    if (line.filling.length > 0) return;
    this.retire(line);
  }

  private retire(line: Line): void {
    this.endTurn(line);
    if (this.speaking.get(line.name) === line) this.speaking.delete(line.name);
    if (line.closing) return;
    line.closing = true;
    if (this.stream?.has(line.id)) this.stream.close(line.id);
    else this.forget(line);
  }

  /** A line is over: its prompts have all the audio they will get. */
  private forget(line: Line): void {
    this.lines.delete(line.id);
    if (this.speaking.get(line.name) === line) this.speaking.delete(line.name);
    line.turn = undefined;
    for (const prompt of line.filling.splice(0)) prompt.finish();
  }

  private event(event: SpeechStreamEvent): Promise<void> | undefined {
    const line = this.lines.get(event.context);
    if (!line) return undefined;
    switch (event.type) {
      case "audio":
        return line.filling[0]?.audio(event.audio);
      case "mark":
        line.filling[0]?.mark(event.name);
        return undefined;
      case "flushed":
        line.filling.shift()?.finish();
        this.idle(line);
        return undefined;
      case "error":
        this.forget(line);
        this.deps.failed(line.name, event.error);
        return undefined;
      case "done":
        this.forget(line);
        return undefined;
      case "cleared":
        return undefined;
    }
  }

  /** The stream ended itself (nothing spoken for `tts.stream_idle_s`): an open turn ends with what it had. */
  private ended(): void {
    this.stream = undefined;
    this.speaking.clear();
    for (const line of [...this.lines.values()]) this.forget(line);
  }
}
