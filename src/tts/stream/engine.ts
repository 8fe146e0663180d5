/**
 * What a speech stream (./stream.ts) needs of the TTS service that opens it: the voice of a
 * context resolved as every door resolves it (D1–D5) with a planner over the key's lexicon, the
 * admission gate its sentences render under, the limits, and the checks every speech request gets
 * (length, blocked content). The service builds one per stream (../service.ts), so contexts never
 * reach into the service itself.
 */
import type { SpeechContextRequest, SpeechResolution } from "../../core/tts.ts";
import type { Logger } from "../../log/logger.ts";
import type { Admission } from "../../serving/admission.ts";
import type { ApiKeyRecord } from "../../store/keys.ts";
import type { PlanStep } from "../plan.ts";
import type { VoiceRenderer } from "../renderer.ts";

/** The settings a stream is bounded by (`tts.stream_*`, `tts.max_input_chars`). */
export interface StreamLimits {
  /** Contexts open at once on one stream. */
  readonly maxContexts: number;
  /** A stream with no call and no event this long ends itself. */
  readonly idleMs: number;
  /** Text a context may hold not yet spoken, in code points. */
  readonly maxQueuedChars: number;
}

/** The voice a context speaks with, decided when it opens. */
export interface ContextVoice {
  /** What the doors report (D2). */
  readonly public: SpeechResolution;
  /** The main renderer: its rate is the context's audio rate before encoding. */
  readonly renderer: VoiceRenderer;
  /** A cloned voice's speaker embedding (D17). */
  readonly embedding?: Float32Array;
  /** The plan of a piece of text or an SSML document: lexicon, `<lang>` speakers, sentences, marks. */
  plan(input: string): PlanStep[];
}

/** What the TTS service lends a stream. */
export interface StreamEngine {
  readonly admission: Admission;
  readonly log: Logger;
  readonly limits: StreamLimits;
  /** Consumes one request of the key's rate limit (429 AppError when none is left). */
  readonly admit?: (key: ApiKeyRecord) => void;
  /** Reports each sentence: seconds spent rendering and seconds of audio (metrics). */
  readonly observeInference?: (seconds: number, audioSeconds: number) => void;
  /** Resolves a context's voice (AppError when it cannot be used). */
  voice(request: SpeechContextRequest, keyId: string): ContextVoice;
  /**
   * Refuses text no speech request may hold (400): over `tts.max_input_chars`, blocked content (D7),
   * a malformed or unsupported SSML document.
   */
  check(text: string, voice: string): void;
}
