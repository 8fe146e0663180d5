/**
 * The transport-free TTS contract. REST, WebSocket, gRPC and `sawt tts` all call a
 * {@link TtsService}; none of them re-implements validation, voice resolution or encoding.
 */

import type { AudioFormat } from "../audio/formats.ts";
import type { CallOptions } from "../core/call.ts";

// Call options are shared by every engine (src/core/call.ts); re-exported for existing importers.
export type { CallOptions } from "../core/call.ts";

// Output formats (D8) are declared once, with their content types, in src/audio/formats.ts.
export { AUDIO_FORMATS, type AudioFormat } from "../audio/formats.ts";

/** The spec's voices (Nouf and Atheer were removed; D1). */
export const VOICES = ["Yara", "Sherine", "Myriam", "Yara_en"] as const;
/** A built-in voice name. */
export type BuiltinVoice = (typeof VOICES)[number];

/** The spec's dialects. */
export const DIALECTS = ["ar-najdi", "ar-hijazi", "ar-qassimi", "ar-egyptian", "ar-levantine"] as const;
/** One dialect. */
export type Dialect = (typeof DIALECTS)[number];

/** A validated speech request (after D6/D7 rules: speed clamped, input checked). */
export interface SpeechRequest {
  readonly input: string;
  /** As requested (may be unknown/removed: resolution decides, D1). */
  readonly voice: string;
  readonly responseFormat: AudioFormat;
  /** Clamped to [0.5, 2.0]. */
  readonly speed: number;
  /** Body dialect if valid, else header dialect if valid, else undefined (D3). */
  readonly dialect: Dialect | undefined;
  /** Optional resampling for telephony, 8000–48000 (D8). */
  readonly sampleRate: number | undefined;
}

/** Which engine produced audio. */
export type TtsEngineName = "piper" | "vits" | "espeak-ng" | "cloned";

/** What was actually used (D2): reported in X-TTS-* headers and gRPC responses. */
export interface SpeechResolution {
  readonly voice: string;
  readonly dialect: Dialect | "en";
  readonly engine: TtsEngineName;
  /** Why a fallback happened, when one did (X-TTS-Fallback). */
  readonly fallback: string | undefined;
}

/** A finished synthesis. */
export interface SpeechResult extends SpeechResolution {
  readonly audio: Uint8Array;
  readonly format: AudioFormat;
  readonly contentType: string;
  readonly sampleRate: number;
  readonly durationSeconds: number;
}

/** One sentence of streamed synthesis, as raw PCM. */
export interface SpeechChunk {
  readonly pcm: Float32Array;
  readonly sampleRate: number;
  readonly index: number;
  readonly last: boolean;
}

/** A voice as listed by GET /v1/tts/voices. */
export interface VoiceInfo {
  readonly voice_id: string;
  readonly name: string;
  readonly type: "builtin" | "cloned";
  readonly language: string;
  readonly dialects: readonly string[];
  readonly engine: TtsEngineName;
  readonly status?: "training" | "ready" | "failed";
}

/** The TTS service all front doors call. */
export interface TtsService {
  /** Validates a raw body (JSON-decoded) plus the X-TTS-Dialect header. Throws AppError 400/422. */
  parseRequest(body: unknown, headerDialect?: string | null): SpeechRequest;
  /** Resolves voice × dialect × installed packs (D1–D5) without synthesising. */
  resolve(request: SpeechRequest, options?: CallOptions): SpeechResolution;
  /** Synthesises and encodes a whole request (admission-controlled). */
  synthesize(request: SpeechRequest, options?: CallOptions): Promise<SpeechResult>;
  /** Synthesises sentence by sentence (admission-controlled); PCM at the voice's rate. */
  synthesizeStream(request: SpeechRequest, options?: CallOptions): { resolution: SpeechResolution; chunks: AsyncIterable<SpeechChunk> };
  /** Built-in voices plus the caller's cloned voices. */
  listVoices(keyId?: string): VoiceInfo[];
}
