/**
 * One context of a speech stream: its text queue, the loop that speaks it and its audio output.
 *
 * Text is cut into whole sentences (./cutter.ts) and queued as units; a flush queues a flush point
 * and a close a closing one. One loop takes the units in order: each is planned (the key's
 * lexicon, `<lang>`, marks), each sentence rendered under the engine's admission gate (one
 * sentence at a time, so a context waiting for its LLM holds no slot), and its audio written.
 * Sentence silence goes before a sentence that follows one with audio, as REST puts it after, so
 * the bytes are REST's for the same text. A clear bumps the context's generation: a sentence being
 * rendered is dropped when it comes back, and nothing of the old generation is written again.
 */
import { describeEncoding } from "../../audio/encode.ts";
import { planEncoding } from "../../audio/formats.ts";
import type {
  AudioSent,
  SentenceTimings,
  SpeechContextInfo,
  SpeechContextRequest,
  SpeechStreamEvent,
} from "../../core/tts.ts";
import { AppError, toAppError } from "../../errors/taxonomy.ts";
import { writtenForm } from "../frontend/phoneme-span.ts";
import { sentenceSilenceSamples } from "../pcm.ts";
import type { PlanStep } from "../plan.ts";
import { isSsml } from "../ssml/parse.ts";
import { renderSentence } from "../synthesis.ts";
import { TextCutter } from "./cutter.ts";
import type { ContextVoice, StreamEngine } from "./engine.ts";
import { type ContextOutput, contextOutput } from "./output.ts";
import { sentenceTimings } from "./timings.ts";

/** A queued piece of work; `segment` counts the flushes before it. */
type Unit =
  | { readonly kind: "text" | "document"; readonly text: string; readonly segment: number }
  | { readonly kind: "flush"; readonly segment: number }
  | { readonly kind: "close" };

/** How a context ended, for its log line. */
export type ContextOutcome = "done" | "failed" | "ended";

/** What a context reports to its stream. */
export interface ContextHooks {
  /** Reports an event; a promise (for audio) holds the next sentence until it settles. */
  emit(event: SpeechStreamEvent): void | Promise<void>;
  /** The context is over (done, failed or ended): the stream forgets it. */
  ended(outcome: ContextOutcome): void;
}

/** See the file comment. */
export class SpeechContext {
  readonly info: SpeechContextInfo;
  /** The same object: `voices` grows when `<lang>` brings in another voice. */
  private readonly mutableInfo: { -readonly [K in keyof SpeechContextInfo]: SpeechContextInfo[K] };
  /** Sentences rendered and the seconds they took (the log line). */
  sentences = 0;
  synthSeconds = 0;
  private readonly cutter = new TextCutter();
  private readonly queue: Unit[] = [];
  private readonly output: ContextOutput;
  private readonly silence: Float32Array;
  private segment = 0;
  private generation = 0;
  private abort = new AbortController();
  /** The segment of the sentence being rendered, if one is. */
  private rendering: number | undefined;
  private loop: Promise<void> | undefined;
  private lastAudible = false;
  private closing = false;
  private over = false;
  private timings: SentenceTimings | undefined;
  /** Deliveries of audio the door has not finished (its flow control). */
  private deliveries: Promise<void>[] = [];

  constructor(
    readonly id: string,
    private readonly voice: ContextVoice,
    private readonly request: SpeechContextRequest,
    private readonly engine: StreamEngine,
    private readonly hooks: ContextHooks,
  ) {
    const rate = voice.renderer.sampleRate;
    const encoding = { targetSampleRate: request.sampleRate, encoding: request.encoding };
    const described = describeEncoding(request.responseFormat, rate, encoding);
    this.info = this.mutableInfo = {
      ...voice.public,
      format: request.responseFormat,
      contentType: described.contentType,
      sampleRate: described.sampleRate,
    };
    const plan = planEncoding(request.responseFormat, rate, request.sampleRate, request.encoding);
    this.output = contextOutput(plan, (bytes, samples) => this.audio(bytes, samples));
    this.silence = new Float32Array(sentenceSilenceSamples(rate));
  }

  /** Whether work is queued or running (the stream is not idle then). */
  get busy(): boolean {
    return this.loop !== undefined;
  }

  /** Seconds of audio written so far. */
  get audioSeconds(): number {
    return this.output.writtenMs / 1000;
  }

  /** Text that is queued and not yet spoken, in code points. */
  get queuedChars(): number {
    let chars = this.cutter.length;
    for (const unit of this.queue) if (unit.kind === "text" || unit.kind === "document") chars += unit.text.length;
    return chars;
  }

  text(piece: string): void {
    this.assertOpen();
    if (piece === "") return;
    if (this.queuedChars + piece.length > this.engine.limits.maxQueuedChars)
      throw new AppError(
        "bad_request",
        `Queued text over the limit of ${this.engine.limits.maxQueuedChars.toLocaleString("en-US")} characters: wait for audio before sending more`,
      );
    if (isSsml(piece)) {
      // A document is whole: what came before it is spoken first, as if flushed.
      this.engine.check(piece, this.request.voice);
      this.enqueueText(this.cutter.flush());
      this.enqueue({ kind: "document", text: piece, segment: this.segment });
      return;
    }
    this.enqueueText(this.cutter.push(piece));
  }

  flush(): void {
    this.assertOpen();
    this.enqueueText(this.cutter.flush());
    this.enqueue({ kind: "flush", segment: this.segment });
    this.segment++;
  }

  clear(): AudioSent {
    this.drop();
    this.lastAudible = false;
    const sent = this.output.sent;
    this.hooks.emit({ type: "cleared", context: this.id, sent });
    // A context that was closing has nothing left to say: it ends (`done`) once the clear is out.
    if (this.closing && !this.over) this.enqueue({ kind: "close" });
    return sent;
  }

  close(dropUnflushed: boolean): void {
    this.assertOpen();
    this.closing = true;
    if (dropUnflushed) {
      this.cutter.clear();
      const kept = this.queue.filter((unit) => unit.kind === "close" || unit.segment < this.segment);
      this.queue.splice(0, this.queue.length, ...kept);
      if (this.rendering === this.segment) this.newGeneration();
    } else this.enqueueText(this.cutter.flush());
    this.enqueue({ kind: "close" });
  }

  /** Stops everything now, without another event (the stream ended). */
  end(): void {
    if (this.over) return;
    this.drop();
    this.finish("ended");
  }

  /** Settles once the loop is idle. */
  async settled(): Promise<void> {
    while (this.loop) await this.loop;
  }

  private assertOpen(): void {
    if (this.closing || this.over) throw new AppError("bad_request", `Context ${this.id} is closing: open a new one`);
  }

  private newGeneration(): void {
    this.generation++;
    this.abort.abort();
    this.abort = new AbortController();
  }

  /** Drops queued text and what is being rendered; the output keeps nothing of it. */
  private drop(): void {
    this.newGeneration();
    this.cutter.clear();
    this.queue.length = 0;
    this.timings = undefined;
    this.output.discard();
  }

  private enqueueText(text: string): void {
    if (text.trim() !== "") this.enqueue({ kind: "text", text, segment: this.segment });
  }

  private enqueue(unit: Unit): void {
    this.queue.push(unit);
    this.kick();
  }

  /** Starts the loop unless it runs; a unit queued as it was ending starts it again. */
  private kick(): void {
    if (this.loop || this.over) return;
    this.loop = this.run().finally(() => {
      this.loop = undefined;
      if (this.queue.length > 0) this.kick();
    });
  }

  private async run(): Promise<void> {
    for (let unit = this.queue.shift(); unit && !this.over; unit = this.queue.shift()) {
      const generation = this.generation;
      try {
        await this.process(unit, generation);
      } catch (thrown) {
        if (generation !== this.generation || this.over) continue;
        this.fail(toAppError(thrown));
        return;
      }
    }
  }

  private async process(unit: Unit, generation: number): Promise<void> {
    if (unit.kind === "flush") {
      this.output.settle();
      this.hooks.emit({ type: "flushed", context: this.id });
      return;
    }
    if (unit.kind === "close") {
      await this.output.finish();
      if (this.over) return;
      this.hooks.emit({ type: "done", context: this.id, sent: this.output.sent });
      this.finish("done");
      return;
    }
    if (unit.kind === "text") this.engine.check(unit.text, this.request.voice);
    const steps = this.voice.plan(unit.text);
    this.noteVoices(steps);
    for (const step of steps) {
      if (generation !== this.generation || this.over) return;
      await this.speak(step, unit.segment, generation);
    }
  }

  /** Records the voices a plan speaks with beside the context's own (SSML `<lang>`), as REST's X-TTS-Voices. */
  private noteVoices(steps: readonly PlanStep[]): void {
    const own = this.voice.renderer;
    const voices = new Set(this.info.voices ?? [this.info.voice]);
    for (const step of steps)
      if (step.kind === "sentence" && step.speaker.renderer !== own) voices.add(step.speaker.voice);
    if (voices.size > 1) this.mutableInfo.voices = [...voices];
  }

  private async speak(step: PlanStep, segment: number, generation: number): Promise<void> {
    if (step.kind === "mark") {
      this.hooks.emit({ type: "mark", context: this.id, name: step.name, audioMs: this.output.writtenMs });
      return;
    }
    const rate = this.voice.renderer.sampleRate;
    if (step.kind === "pause") {
      this.output.write(new Float32Array(Math.round(step.seconds * rate)));
      this.lastAudible = false;
      return;
    }
    const started = performance.now();
    this.rendering = segment;
    const signal = this.abort.signal;
    const aligned = await this.engine.admission
      .run(() => renderSentence(step, this.voice, this.request.timings === true), { signal })
      .finally(() => (this.rendering = undefined));
    if (generation !== this.generation || this.over) return;
    const seconds = (performance.now() - started) / 1000;
    this.sentences++;
    this.synthSeconds += seconds;
    this.engine.observeInference?.(seconds, aligned.pcm.length / rate);
    const silence = this.lastAudible ? this.silence : new Float32Array(0);
    this.lastAudible = aligned.pcm.length > 0;
    if (aligned.pcm.length === 0) {
      this.output.write(silence);
      return;
    }
    if (this.request.timings) {
      const startMs = this.output.writtenMs + (silence.length / rate) * 1000;
      const text = writtenForm(step.sentence.text);
      this.timings = sentenceTimings(text, aligned.pcm.length, rate, startMs, aligned);
    }
    const audio = new Float32Array(silence.length + aligned.pcm.length);
    audio.set(silence);
    audio.set(aligned.pcm, silence.length);
    this.output.write(audio);
    // A door with flow control holds the next sentence until the client has read this one.
    const deliveries = this.deliveries.splice(0);
    if (deliveries.length > 0) await Promise.all(deliveries).catch(() => undefined);
  }

  private audio(bytes: Uint8Array, samples: number): void {
    const atMs = this.output.sent.ms - (samples / this.info.sampleRate) * 1000;
    const timings = this.timings;
    this.timings = undefined;
    const delivered = this.hooks.emit({
      type: "audio",
      context: this.id,
      audio: bytes,
      samples,
      atMs,
      ...(timings ? { timings } : {}),
    });
    if (delivered) this.deliveries.push(delivered);
  }

  private fail(error: AppError): void {
    if (this.over) return;
    this.drop();
    this.hooks.emit({ type: "error", context: this.id, error });
    this.finish("failed");
  }

  private finish(outcome: ContextOutcome): void {
    this.over = true;
    this.output.stop();
    this.hooks.ended(outcome);
  }
}
