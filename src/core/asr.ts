/**
 * The transport-free ASR contract. REST, gRPC and `sawt asr` call an {@link AsrService}.
 */
import type { CallOptions } from "./call.ts";

/** Allowed upload extensions (spec). */
export const UPLOAD_EXTENSIONS = ["flac", "mp3", "mp4", "mpeg", "mpga", "m4a", "ogg", "wav", "webm"] as const;

/** Response formats (D14). */
export const TRANSCRIPT_FORMATS = ["json", "text", "verbose_json", "srt", "vtt"] as const;
/** One response format. */
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/** A word with times, when the model gives timestamps. */
export interface TranscriptWord {
  readonly word: string;
  readonly start: number;
  readonly end: number;
}

/** A segment of a transcript (VAD segment or model segment). */
export interface TranscriptSegment {
  readonly id: number;
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly words?: readonly TranscriptWord[];
}

/** A finished transcription. */
export interface Transcript {
  readonly text: string;
  readonly language: "ar";
  /** Detected dialect, or null without a dialect-id pack. */
  readonly dialect: string | null;
  /** Seconds of audio. */
  readonly duration: number;
  readonly segments: readonly TranscriptSegment[];
}

/** An interim or final streaming result. */
export interface StreamingResult {
  readonly text: string;
  readonly isFinal: boolean;
  readonly start: number;
  readonly end: number;
  readonly dialect: string | null;
}

/** The ASR service all front doors call. */
export interface AsrService {
  /** Decodes (hardened ffmpeg) and transcribes an uploaded file. Throws AppError. */
  transcribeFile(path: string, options?: CallOptions): Promise<Transcript>;
  /** Transcribes 16 kHz mono float samples. */
  transcribeSamples(samples: Float32Array, options?: CallOptions): Promise<Transcript>;
  /** Streaming recognition over 16 kHz mono float chunks: interim then final results (VAD endpointing). */
  transcribeStream(chunks: AsyncIterable<Float32Array>, options?: CallOptions): AsyncIterable<StreamingResult>;
}
