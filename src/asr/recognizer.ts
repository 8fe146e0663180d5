/**
 * What every model family plugs into the ASR service: a recogniser turns one speech segment
 * (≤ 30 s of 16 kHz mono audio) into text, a voice-activity detector scores 32 ms windows, and a
 * dialect identifier names the dialect of a stretch of speech. The registry (packs.ts) builds
 * them from installed packs; the service never asks which family it holds.
 */
import type { Hotword } from "../core/asr.ts";

/** A word with times in seconds relative to the recognised segment. */
export interface RecognizedWord {
  readonly word: string;
  readonly start: number;
  readonly end: number;
}

/** A stretch of text a decoder timed itself (Whisper's timestamp tokens), seconds relative to the segment. */
export interface RecognizedSegment {
  readonly text: string;
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
  /**
   * Present when the family can time words: CTC and transducers (the frames tokens were emitted
   * on); absent for Whisper and Moonshine (attention decoders give no alignment).
   */
  readonly words?: readonly RecognizedWord[];
  /**
   * Present when the decoder times stretches of text itself (Whisper packs that decode timestamp
   * tokens): verbose_json and subtitles report these segments with these times.
   */
  readonly segments?: readonly RecognizedSegment[];
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
  /**
   * Phrases to favour: CTC and transducer recognisers search with a context graph of them
   * (./boost/), Whisper prompts with them; none (or all boosts 0) keeps the greedy search.
   */
  readonly hotwords?: readonly Hotword[];
}

/** A loaded speech recogniser. */
export interface Recognizer {
  /** Pack folder name. */
  readonly name: string;
  /** Model family, for health details and logs only. */
  readonly family: string;
  readonly provider: "cpu" | "cuda";
  /**
   * Longest audio (seconds) the family decodes well in one call: the segmentation policy hands
   * audio up to this long over whole and cuts longer audio into segments no longer than this. Per
   * family, see docs/architecture.md ("ASR recogniser families") and models/README.md.
   */
  readonly maxSegmentSeconds: number;
  /** Recognises one segment of at most {@link Recognizer.maxSegmentSeconds}. */
  recognize(samples: Float32Array, signal?: AbortSignal, options?: RecognizeOptions): Promise<RecognizedText>;
  release(): Promise<void>;
}

/**
 * One live audio stream through a streaming recogniser. Audio goes in as it arrives; `decode`
 * runs every chunk the model can take so far and returns the text so far (a partial result);
 * `finalize` pads and decodes the tail and returns the final text. Text only grows while a
 * stream lives: streaming families never revise what they emitted. Not safe for concurrent calls:
 * await each `decode` before the next.
 */
export interface RecognizerStream {
  /** Appends 16 kHz mono samples in [-1, 1]. */
  acceptWaveform(samples: Float32Array): void;
  /** Decodes every complete chunk received so far; the text (and word times) of the stream so far. */
  decode(signal?: AbortSignal): Promise<RecognizedText>;
  /** Ends the input, decodes what is left and returns the stream's final text; the stream is then spent. */
  finalize(signal?: AbortSignal): Promise<RecognizedText>;
}

/**
 * A recogniser that can decode audio as it arrives (cache-aware streaming models). It is also a
 * plain {@link Recognizer}: `recognize` runs one stream over the whole segment.
 */
export interface StreamingRecognizer extends Recognizer {
  /** Seconds of audio one model chunk advances by: partial results cannot come more often. */
  readonly chunkSeconds: number;
  createStream(): RecognizerStream;
}

/** Whether `recognizer` can decode a live stream chunk by chunk. */
export function isStreamingRecognizer(recognizer: Recognizer): recognizer is StreamingRecognizer {
  return typeof (recognizer as Partial<StreamingRecognizer>).createStream === "function";
}

/** Longest segment a recogniser is given (Whisper's window). */
export const MAX_SEGMENT_SECONDS = 30;

/**
 * Window of the offline NeMo families (CTC, transducer): their FastConformer encoders use full
 * attention, whose cost grows with the square of the length, and were trained on utterances of
 * up to ~20–30 s, so 30 s keeps both memory and accuracy where the models were made for.
 */
export const OFFLINE_CONFORMER_SECONDS = 30;

/** Samples per VAD window at 16 kHz (Silero v5's 32 ms). */
export const VAD_WINDOW = 512;

/** Scores successive {@link VAD_WINDOW}-sample windows of one audio stream. */
export interface VadStream {
  /** Speech probability in [0, 1] of the next window (exactly {@link VAD_WINDOW} samples). */
  probability(window: Float32Array): Promise<number>;
  /**
   * Probabilities of several successive windows, in order, in one go when the detector can batch
   * them (Silero: one worker call); the same values as calling {@link probability} on each.
   */
  probabilities?(windows: readonly Float32Array[]): Promise<number[]>;
}

/** Probabilities of successive windows: one batched call when `stream` batches, else window by window. */
export async function scoreWindows(stream: VadStream, windows: readonly Float32Array[]): Promise<number[]> {
  if (stream.probabilities) return stream.probabilities(windows);
  const scores: number[] = [];
  for (const window of windows) scores.push(await stream.probability(window));
  return scores;
}

/** A voice-activity detector: one independent stream per audio. */
export interface VoiceActivityDetector {
  /** `silero` (a pack) or `energy` (built in). */
  readonly kind: string;
  /** Pack name, when it comes from one. */
  readonly name: string | null;
  /** Where a pack's session runs (absent for the built-in energy detector). */
  readonly provider?: "cpu" | "cuda";
  createStream(): VadStream;
  release(): Promise<void>;
}

/** A loaded dialect identifier. */
export interface DialectIdentifier {
  readonly name: string;
  /** Where its session runs. */
  readonly provider?: "cpu" | "cuda";
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
