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

/** How a decoder reached its text, when it searches (Whisper); verbose_json shows them per segment. */
export interface DecodingFacts {
  /** Sampling temperature of the decode that was kept (0 is greedy). */
  readonly temperature: number;
  /** Mean log-probability of the emitted tokens (end of text included). */
  readonly avgLogprob: number;
  /** UTF-8 bytes of the text over its zlib-compressed bytes (repetition shows as > 2.4). */
  readonly compressionRatio: number;
}

/** One segment's recognition. */
export interface RecognizedText {
  readonly text: string;
  /** Present when the model yields timing (CTC frames); absent for Whisper without timestamps. */
  readonly words?: readonly RecognizedWord[];
  /**
   * True when the first token says the text continues the previous piece's last word (a word
   * piece without a word-start mark); see src/asr/segmentation/join.ts for who can tell.
   */
  readonly continuesWord?: boolean;
  readonly decoding?: DecodingFacts;
}

/** Per-call decoding options; a recogniser that cannot use one ignores it. */
export interface RecognizeOptions {
  /** Text the audio continues (Whisper: previous-text context after `<|startofprev|>`). */
  readonly prompt?: string;
  /** First sampling temperature in [0, 1] (Whisper: 0 means greedy with temperature fallback). */
  readonly temperature?: number;
  /**
   * Seconds into the given audio, each inside a pause the segmentation policy ends an utterance
   * at: word boundaries for recognisers whose tokens cannot mark them across silence (character
   * CTC). Others ignore them.
   */
  readonly wordBreaks?: readonly number[];
}

/** A loaded speech recogniser. */
export interface Recognizer {
  /** Pack folder name. */
  readonly name: string;
  /** Model family, for health details and logs only. */
  readonly family: string;
  readonly provider: "cpu" | "cuda";
  /**
   * Longest audio (seconds) recognised in one call; absent means {@link MAX_SEGMENT_SECONDS}.
   * The segmentation policy decodes audio up to this long whole.
   */
  readonly maxSegmentSeconds?: number;
  /** Recognises one segment of at most its window ({@link maxSegmentSeconds}). */
  recognize(samples: Float32Array, signal?: AbortSignal, options?: RecognizeOptions): Promise<RecognizedText>;
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
  /** Labels in logit order. */
  readonly labels: readonly string[];
  /** Longest audio (seconds) one call looks at. */
  readonly maxSeconds: number;
  /** The dialect label of `samples`, or null when it cannot tell. */
  identify(samples: Float32Array, signal?: AbortSignal): Promise<string | null>;
  /** One logit per label for `samples`, or null when there is nothing to score. */
  logits(samples: Float32Array, signal?: AbortSignal): Promise<Float32Array | null>;
  release(): Promise<void>;
}
