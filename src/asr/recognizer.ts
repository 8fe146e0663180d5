/**
 * What every model family plugs into the ASR service: a recogniser turns one speech segment
 * (≤ 30 s of 16 kHz mono audio) into text, a voice-activity detector scores 32 ms windows, and a
 * dialect identifier names the dialect of a stretch of speech. The registry (packs.ts) builds
 * them from installed packs; the service never asks which family it holds.
 */

/** A word with times in seconds relative to the recognised segment. */
export interface RecognizedWord {
  readonly word: string;
  readonly start: number;
  readonly end: number;
}

/** One segment's recognition. */
export interface RecognizedText {
  readonly text: string;
  /** Present when the model yields timing (CTC frames); absent for Whisper without timestamps. */
  readonly words?: readonly RecognizedWord[];
}

/** A loaded speech recogniser. */
export interface Recognizer {
  /** Pack folder name. */
  readonly name: string;
  /** Model family, for health details and logs only. */
  readonly family: string;
  readonly provider: "cpu" | "cuda";
  /** Recognises one segment of at most {@link MAX_SEGMENT_SECONDS}. */
  recognize(samples: Float32Array, signal?: AbortSignal): Promise<RecognizedText>;
  release(): Promise<void>;
}

/** Longest segment a recogniser is given (Whisper's window). */
export const MAX_SEGMENT_SECONDS = 30;

/** Samples per VAD window at 16 kHz (Silero v5's 32 ms). */
export const VAD_WINDOW = 512;

/** Scores successive {@link VAD_WINDOW}-sample windows of one audio stream. */
export interface VadStream {
  /** Speech probability in [0, 1] of the next window (exactly {@link VAD_WINDOW} samples). */
  probability(window: Float32Array): Promise<number>;
}

/** A voice-activity detector: one independent stream per audio. */
export interface VoiceActivityDetector {
  /** `silero` (a pack) or `energy` (built in). */
  readonly kind: string;
  /** Pack name, when it comes from one. */
  readonly name: string | null;
  createStream(): VadStream;
  release(): Promise<void>;
}

/** A loaded dialect identifier. */
export interface DialectIdentifier {
  readonly name: string;
  /** The dialect label of `samples`, or null when it cannot tell. */
  identify(samples: Float32Array, signal?: AbortSignal): Promise<string | null>;
  release(): Promise<void>;
}
