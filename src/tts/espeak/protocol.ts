/**
 * Messages between the main thread and the espeak worker (see library.ts for why espeak runs in
 * a worker). Sentences cross as the front-end's plain `Sentence` objects; synthesised PCM comes
 * back with its buffer transferred, not copied.
 */
import type { Sentence } from "../frontend/sentences.ts";

/** What an initialised espeak-ng reports about itself. */
export interface EspeakInfo {
  /** Output rate of espeak's own voices (22050 Hz for espeak-ng 1.51). */
  readonly sampleRate: number;
  /** e.g. "1.51". */
  readonly version: string;
  readonly libraryPath: string;
  readonly dataPath: string;
}

/** espeak settings for one synthesis (voice+variant, rate in wpm, pitch and range 0–100). */
export interface SynthSettings {
  readonly voice: string;
  readonly rate: number;
  readonly pitch: number;
  readonly range: number;
}

/** A request's work, without its id. */
export type EspeakRequest =
  /**
   * Loads and initialises espeak if it is not yet; answers its info. Carries the main thread's
   * SAWT_ESPEAK_LIB / SAWT_ESPEAK_DATA as they are now (a worker's own env is a snapshot).
   */
  | { readonly op: "open"; readonly env: Readonly<Record<string, string | undefined>> }
  | { readonly op: "phonemize"; readonly sentences: readonly Sentence[]; readonly voice: string }
  | { readonly op: "synthesize"; readonly text: string; readonly settings: SynthSettings }
  /** Terminates espeak and frees the library; the worker is ended right after. */
  | { readonly op: "close" };

/** Main → worker: one request, answered by the reply with the same id. */
export type ToEspeakWorker = EspeakRequest & { readonly id: number };

/** Why a request failed, as it crosses the thread boundary. */
export type WireFailure =
  /** espeak-ng cannot be loaded: becomes an EspeakUnavailableError. */
  | { readonly kind: "unavailable"; readonly reason: string; readonly tried: readonly string[] }
  /** espeak has no such voice: becomes a 500 AppError (a pack or profile names a wrong voice). */
  | { readonly kind: "voice"; readonly message: string }
  | { readonly kind: "error"; readonly message: string };

/** Worker → main. */
export type FromEspeakWorker =
  | { readonly id: number; readonly ok: true; readonly info: EspeakInfo }
  | { readonly id: number; readonly ok: true; readonly phonemes: string[][] }
  | { readonly id: number; readonly ok: true; readonly samples: Int16Array; readonly sampleRate: number }
  | { readonly id: number; readonly ok: true; readonly closed: true }
  | { readonly id: number; readonly ok: false; readonly failure: WireFailure };
