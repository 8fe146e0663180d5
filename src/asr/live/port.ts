/**
 * What the live core needs from the ASR engine, and nothing more: the voice-activity detector and
 * dialect identifier it endpoints and labels with, the recognisers (default and dialect routes),
 * and the file policy (../file-policy.ts) over one utterance. {@link livePortOf} builds it over
 * the file policy and the service's admission; the core never sees packs, admission or budgets
 * beyond `admitted`.
 */
import type { CallOptions } from "../../core/call.ts";
import type { Hotword, Transcript, TranscriptionLanguage, TranscriptWord } from "../../core/asr.ts";
import type { FilePolicy } from "../file-policy.ts";
import type { DialectIdentifier, Recognizer, VoiceActivityDetector } from "../recognizer.ts";

/** An utterance as the file policy transcribes it; times relative to the utterance. */
export interface UtteranceText {
  readonly text: string;
  readonly words?: readonly TranscriptWord[];
  /** exp(mean token log-probability) when the recogniser searches (Whisper); absent otherwise. */
  readonly confidence?: number;
}

/** See the file comment. */
export interface LivePort {
  readonly detector: VoiceActivityDetector;
  readonly dialectIdentifier: DialectIdentifier | null;
  /** Seconds of speech the call's dialect is decided over (`asr.dialect_seconds`). */
  readonly dialectSeconds: number;
  /** The call's phrases (its own and the key's list): partials favour them as finals do. */
  readonly hotwords?: readonly Hotword[];
  /**
   * The recogniser for the call's language and dialect so far (English: the built-in one; else a
   * dialect route, else the default). Throws the 400 for a language nothing loaded serves.
   */
  recognizerFor(dialect: string | null, language?: TranscriptionLanguage): Recognizer;
  /**
   * One utterance through the file policy with `recognizer`, under admission, observed. With
   * `wholeSpan` the utterance is one speech span already (no second VAD pass over it).
   */
  transcribeUtterance(
    samples: Float32Array,
    recognizer: Recognizer,
    wholeSpan: boolean,
    call: CallOptions,
  ): Promise<UtteranceText>;
  /** Runs one model job (a partial, a stream chunk, a dialect score) under the engine's admission. */
  admitted<T>(job: () => Promise<T>, call: CallOptions): Promise<T>;
  /** Hears the inference time and audio seconds of a final. */
  observe(seconds: number, audioSeconds: number): void;
}

/** A transcript of one utterance as the live core takes it (times relative to the utterance). */
export function utteranceOf(transcript: Transcript): UtteranceText {
  const logprobs = transcript.segments.flatMap((s) => (s.avgLogprob !== undefined ? [s.avgLogprob] : []));
  const mean = logprobs.reduce((a, b) => a + b, 0) / logprobs.length;
  return {
    text: transcript.text,
    ...(transcript.words ? { words: transcript.words } : {}),
    ...(logprobs.length > 0 ? { confidence: Math.round(Math.exp(mean) * 1000) / 1000 } : {}),
  };
}

/** What the engine port runs on: the file policy and the service's admission and observer. */
export interface LivePortSources {
  readonly files: FilePolicy;
  /** Runs one model job under the engine's admission (a live call is admitted per recognition). */
  admitted<T>(job: () => Promise<T>, call: CallOptions): Promise<T>;
  observe?(seconds: number, audioSeconds: number): void;
}

/**
 * The engine port of one live call (or of every call without phrases): the file policy's
 * detectors and routes, and each utterance transcribed by the file policy with the call's
 * `hotwords`, under admission and observed.
 */
export function livePortOf(sources: LivePortSources, hotwords?: readonly Hotword[]): LivePort {
  const { files } = sources;
  const observe = (seconds: number, audioSeconds: number) => sources.observe?.(seconds, audioSeconds);
  return {
    detector: files.detector,
    dialectIdentifier: files.models.packs.dialect,
    dialectSeconds: files.dialectSeconds,
    ...(hotwords?.length ? { hotwords } : {}),
    recognizerFor: (dialect, language) => files.recognizerFor(dialect, language),
    transcribeUtterance: (samples, recognizer, wholeSpan, call) =>
      sources.admitted(async () => {
        const started = performance.now();
        const spans = wholeSpan ? [{ start: 0, end: samples.length }] : undefined;
        // The call's dialect was decided (and the recogniser routed) by the live core.
        const language = recognizer === files.routes.builtin ? "en" : "ar";
        const options = { signal: call.signal, language, ...(hotwords?.length ? { hotwords } : {}) } as const;
        const transcript = await files.transcribe(samples, options, spans, recognizer);
        observe((performance.now() - started) / 1000, transcript.duration);
        return utteranceOf(transcript);
      }, call),
    admitted: (job, call) => sources.admitted(job, call),
    observe,
  };
}
