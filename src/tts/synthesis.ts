/**
 * The one synthesis path behind every TTS call: a synthesis decided before any audio (voice,
 * renderer, plan) runs sentence by sentence under an admission slot, and reports once how it
 * ended. The buffered call (`synthesize`) collects it and the streamed calls hand it out as it
 * comes (./service.ts), so admission, rendering, sentence silence, metrics and the log line's
 * figures are computed in one place.
 */
import type { SpeechChunk, SpeechResolution } from "../core/tts.ts";
import { resampleAll } from "../audio/resampler.ts";
import type { Admission } from "../serving/admission.ts";
import type { CallOptions } from "./types.ts";
import type { AlignedAudio, VoiceRenderer } from "./renderer.ts";
import { codePointLength } from "./frontend/index.ts";
import { levelSentence, sentenceSilenceSamples } from "./pcm.ts";
import type { PlanStep } from "./plan.ts";
import type { VoiceResolution } from "./voice-resolution.ts";

/** A synthesis decided before any audio: the voice, its renderer and the plan. */
export interface Synthesis {
  readonly resolution: VoiceResolution;
  readonly renderer: VoiceRenderer;
  readonly steps: readonly PlanStep[];
  /** What the doors report (D2). */
  readonly public: SpeechResolution;
}

/** One sentence's audio as a run hands it out: levelled, at the renderer's rate. */
export interface RunSentence {
  readonly pcm: Float32Array;
  readonly index: number;
  readonly last: boolean;
  readonly sentenceChars: number;
  /** Samples of sentence silence that follow it: none after the last sentence, a `<break>` or a sentence a break follows. */
  readonly silenceAfter: number;
}

/** How a run ended and what it produced: the call's one log line and the inference metrics. */
export interface RunReport {
  outcome: "completed" | "cancelled" | "failed";
  /** Seconds spent rendering (front-end, phonemes, model). */
  seconds: number;
  /** Samples handed out, sentence silence included. */
  samples: number;
  /** Sentences rendered, and how many the plan has. */
  rendered: number;
  total: number;
}

/**
 * Runs a synthesis: holds an admission slot for as long as it produces audio (however slowly the
 * consumer reads; 503/504 or the caller's abort before the first sentence), renders sentence by
 * sentence, stops when the caller goes away, and hands `finish` the report once it ends.
 */
export async function* runSynthesis(
  admission: Admission,
  synthesis: Synthesis,
  options: CallOptions,
  finish: (report: RunReport) => void,
): AsyncGenerator<RunSentence> {
  const { renderer, resolution } = synthesis;
  // Marks are points for the streaming doors to report; this run (REST, the CLI) only speaks.
  const steps = synthesis.steps.filter((step) => step.kind !== "mark");
  const slot = await holdSlot(admission, options);
  const report: RunReport = { outcome: "cancelled", seconds: 0, samples: 0, rendered: 0, total: 0 };
  try {
    const silence = sentenceSilenceSamples(renderer.sampleRate);
    for (let index = 0; index < steps.length; index++) {
      options.signal?.throwIfAborted();
      const step = steps[index] as Exclude<PlanStep, { kind: "mark" }>;
      const last = index === steps.length - 1;
      const started = performance.now();
      let pcm: Float32Array;
      let sentenceChars = 0;
      // A `<break>` is silence already, and so is what precedes one: no sentence silence after either.
      let pause = steps[index + 1]?.kind === "pause";
      if (step.kind === "pause") {
        pcm = new Float32Array(Math.round(step.seconds * renderer.sampleRate));
        pause = true;
      } else {
        pcm = (await renderSentence(step, { renderer, embedding: resolution.cloned?.embedding })).pcm;
        sentenceChars = codePointLength(step.sentence.text);
        report.seconds += (performance.now() - started) / 1000;
      }
      report.rendered++;
      report.total = steps.length;
      const silenceAfter = last || pause || pcm.length === 0 ? 0 : silence;
      report.samples += pcm.length + silenceAfter;
      yield { pcm, index, last, sentenceChars, silenceAfter };
    }
    report.outcome = "completed";
  } catch (error) {
    if (!options.signal?.aborted) report.outcome = "failed";
    throw error;
  } finally {
    slot.release();
    finish(report);
    await slot.done;
  }
}

/** A plan's sentence step. */
export type SentenceStep = Extract<PlanStep, { kind: "sentence" }>;

/**
 * Renders one sentence of a plan at the main renderer's rate, levelled: what every synthesis
 * speaks. With `aligned`, the phonemes and (when the model reports them) their durations come
 * too, scaled to the returned audio, for timings (./stream/timings.ts).
 */
export async function renderSentence(
  step: SentenceStep,
  main: { readonly renderer: VoiceRenderer; readonly embedding?: Float32Array },
  aligned = false,
): Promise<AlignedAudio> {
  const { speaker, sentence } = step;
  const options = {
    speed: step.speed,
    voice: speaker.voice,
    dialect: speaker.dialect,
    embedding: speaker.renderer === main.renderer ? main.embedding : undefined,
  };
  const { renderer } = speaker;
  const raw: AlignedAudio =
    aligned && renderer.renderAligned
      ? await renderer.renderAligned(sentence, options)
      : { pcm: await renderer.render(sentence, options), phonemes: [] };
  const pcm = resampleAll(levelSentence(raw.pcm), renderer.sampleRate, main.renderer.sampleRate);
  if (!aligned) return { pcm, phonemes: raw.phonemes };
  // A voice without durations is timed from its reading (phoneme counts).
  const phonemes = raw.phonemes.length > 0 || !renderer.read ? raw.phonemes : (await renderer.read(sentence)).phonemes;
  const scale = raw.pcm.length > 0 ? pcm.length / raw.pcm.length : 1;
  return {
    pcm,
    phonemes,
    durations: raw.durations?.map((samples) => samples * scale),
    lead: raw.lead === undefined ? undefined : raw.lead * scale,
  };
}

/** The PCM of `first` then of every later sentence; ending it early ends the synthesis (frees its slot). */
export async function* pcmFrom(first: SpeechChunk, rest: AsyncIterator<SpeechChunk>): AsyncGenerator<Float32Array> {
  try {
    yield first.pcm;
    for (let step = await rest.next(); !step.done; step = await rest.next()) yield step.value.pcm;
  } finally {
    await rest.return?.();
  }
}

/**
 * Takes an admission slot and keeps it until `release`: a stream holds its slot for as long as
 * it produces audio, however slowly the client reads. Rejects as `Admission.run` does (503/504,
 * or the caller's abort). An abort also frees the slot, even if the consumer never ends its loop.
 */
async function holdSlot(admission: Admission, options: CallOptions): Promise<{ release(): void; done: Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let admitted!: () => void;
  const started = new Promise<void>((resolve) => (admitted = resolve));
  const done = admission.run(
    async () => {
      admitted();
      await released;
    },
    { signal: options.signal, timeoutMs: options.timeoutMs },
  );
  await Promise.race([started, done]);
  options.signal?.addEventListener("abort", release, { once: true });
  return { release, done };
}
