/**
 * What every speaking engine offers the service: the front-end split of a text into bounded
 * sentences, and one sentence → PCM at the engine's own rate. The service adds sentence silence,
 * level and encoding, so Piper, sherpa-onnx VITS and espeak-ng packs differ only here.
 */
import type { Sentence } from "./frontend/index.ts";
import type { BuiltinVoice, Dialect, RendererName } from "./types.ts";

/** Knobs of one sentence's synthesis. */
export interface RenderOptions {
  /** Already clamped to [0.5, 2.0]. */
  readonly speed: number;
  /** The voice and dialect resolution settled on (a multi-speaker pack may pick a speaker by them). */
  readonly voice: BuiltinVoice;
  readonly dialect: Dialect | "en";
  /** A cloned voice's speaker embedding (D17), for packs that take one. */
  readonly embedding?: Float32Array;
}

/**
 * How one sentence will be read: what POST /v1/tts/analyze shows, computed by the same function
 * the renderer speaks from.
 */
export interface SentenceReading {
  /** The text after diacritisation (the sentence's own text when the voice is not diacritised). */
  readonly diacritized: string;
  /** The phonemes the voice is fed (IPA code points; a text voice's NFD code points). */
  readonly phonemes: readonly string[];
}

/**
 * One sentence's audio with the phonemes it was made from and, when the voice's model reports
 * them (a Piper export with its durations output), how long each lasts: what timings are made of
 * (./stream/timings.ts).
 */
export interface AlignedAudio {
  readonly pcm: Float32Array;
  /** The phonemes fed to the model (`" "` between words), as {@link SentenceReading.phonemes}. */
  readonly phonemes: readonly string[];
  /** Samples of `pcm` each phoneme lasts (same length as `phonemes`); undefined when unknown. */
  readonly durations?: readonly number[];
  /** Samples of `pcm` before the first phoneme (the model's start symbol), with `durations`. */
  readonly lead?: number;
}

/** The characters a character-level voice speaks (built by ./characters.ts). */
export interface CharacterSet {
  /** What it reads, for the error detail: "Arabic script", "Arabic and Latin script". */
  readonly reads: string;
  /** Whether the sentence holds at least one letter, mark or digit the voice has an id for. */
  speaks(sentence: Sentence): boolean;
}

/** One engine speaking one voice. */
export interface VoiceRenderer {
  readonly engine: RendererName;
  /** Rate of the PCM {@link render} returns. */
  readonly sampleRate: number;
  /** Text → sentences (normalised, numbers read out in the speaking dialect, bounded in length). */
  sentences(text: string, dialect?: Dialect | "en"): Sentence[];
  /** One sentence → mono float PCM at {@link sampleRate}; empty when there is nothing to say. */
  render(sentence: Sentence, options: RenderOptions): Promise<Float32Array>;
  /**
   * What a character-level voice can read; absent for voices that read any text (espeak-ng
   * phonemes). Synthesis refuses an input with no character it speaks (./characters.ts).
   */
  readonly characters?: CharacterSet;
  /** How a sentence will be read; voices without it read the sentence's text as it is. */
  read?(sentence: Sentence): Promise<SentenceReading>;
  /** {@link render} plus the phonemes and, when the model reports them, their durations. */
  renderAligned?(sentence: Sentence, options: RenderOptions): Promise<AlignedAudio>;
  /** Frees sessions. */
  release(): Promise<void>;
}
