/**
 * The transport-free TTS contract: the typed speech request every door produces
 * (./speech-request.ts, re-exported here), the {@link TtsService} that REST, WebSocket, gRPC, MRCP
 * and `sawt tts` call, and the streaming-text speech stream ({@link SpeechStream}) the voice-bot
 * doors and call sessions drive. No door re-implements validation, voice resolution or encoding.
 */
import type { AudioFormat } from "../audio/formats.ts";
import type { SampleEncoding } from "../audio/g711.ts";
import type { FieldNaming } from "../errors/fields.ts";
import type { AppError } from "../errors/taxonomy.ts";
import type { ApiKeyRecord } from "../store/keys.ts";
import type { CallOptions } from "./call.ts";
import type { BuiltinVoice, Dialect, SpeechRequest } from "./speech-request.ts";

export * from "./speech-request.ts";

/** Which engine produced audio. */
export type RendererName = "piper" | "vits" | "espeak-ng" | "cloned";

/** What was actually used (D2): reported in X-TTS-* headers and gRPC responses. */
export interface SpeechResolution {
  readonly voice: string;
  readonly dialect: Dialect | "en";
  readonly engine: RendererName;
  /** Why a fallback happened, when one did (X-TTS-Fallback). */
  readonly fallback: string | undefined;
  /**
   * Every voice the prompt is spoken with, in order of first use, when SSML `<lang>` brings in
   * another (X-TTS-Voices); undefined when one voice speaks it all.
   */
  readonly voices?: readonly string[];
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

/**
 * An encoded synthesis streamed as it is produced: what speaks, what the client will decode, and
 * the bytes. It exists only once the first audio is known (which fixes the rate), so a door can
 * send its start message or headers from it; errors known before then are thrown instead.
 */
export interface EncodedSpeechStream extends SpeechResolution {
  readonly format: AudioFormat;
  readonly contentType: string;
  /** The rate a client decoding the bytes gets (`X-Sample-Rate`). */
  readonly sampleRate: number;
  /** The encoded bytes, sentence by sentence; cancelling it stops synthesis and frees the slot. */
  readonly audio: ReadableStream<Uint8Array>;
}

/**
 * The model pack a built-in voice speaks with, as the running engine loaded it: GET /v1/tts/voices
 * lists these beside the voices (`packs`), so the voice entries stay what gRPC's ListVoices sends.
 */
export interface VoicePackServing {
  /** The voice it serves. */
  readonly voice: string;
  /** The pack's folder under the models directory. */
  readonly name: string;
  readonly family: string;
  readonly size_bytes: number;
  /** Where its sessions run: `cpu` or `cuda`. */
  readonly provider: string;
  /** Load plus warm-up of this engine generation, in ms. */
  readonly warm_up_ms: number;
}

/** A voice as listed by GET /v1/tts/voices. */
export interface VoiceInfo {
  readonly voice_id: string;
  readonly name: string;
  readonly type: "builtin" | "cloned";
  readonly language: string;
  readonly dialects: readonly string[];
  readonly engine: RendererName;
  readonly status?: "training" | "ready" | "failed";
}

/** One item of an analysis: a sentence as it will be read, or a pause. */
export type AnalysisItem =
  | {
      readonly type: "sentence";
      readonly voice: BuiltinVoice;
      readonly dialect: Dialect | "en";
      readonly engine: RendererName;
      /** The speed this sentence is spoken at (request speed × `<prosody rate>`, clamped). */
      readonly speed: number;
      /** After the key's lexicon and the front-end (numbers, dates, currency read out). */
      readonly normalized: string;
      /** After diacritisation (the same text when the voice is not diacritised). */
      readonly diacritized: string;
      /** The phonemes the voice is fed (IPA; a text voice's code points). */
      readonly phonemes: string;
    }
  | { readonly type: "break"; readonly seconds: number };

/** How a request will be read (POST /v1/tts/analyze). */
export interface SpeechAnalysis extends SpeechResolution {
  /** True when the input was SSML. */
  readonly ssml: boolean;
  /** The diacritiser in use: a `tashkeel/` pack, the built-in model, or none. */
  readonly tashkeel: "pack" | "built-in" | "off";
  readonly sentences: readonly AnalysisItem[];
}

/**
 * What a speech context speaks with: a speech request without its text (the door validates it
 * as every speech request is, src/tts/schema.ts), and whether to time its characters.
 */
export type SpeechContextRequest = Omit<SpeechRequest, "input"> & {
  /** Attach each sentence's {@link SentenceTimings} to its first audio (ElevenLabs' alignment). */
  readonly timings?: boolean;
};

/**
 * Speech validation as a feature outside TTS reaches it (a call session's `say` and `text`, issue
 * 41): the rules every door's speech gets (types 422, empty or long text, blocked content D7,
 * malformed SSML 400), naming fields as the door names them. The TTS feature's `parseSpeech` and
 * `parseSpeechSettings` (src/tts/schema.ts) are what the wiring hands over.
 */
export interface SpeechValidation {
  /** A whole request (its text and settings, mapped to the shared names: `input`, `voice`, …); throws the AppError. */
  request(fields: unknown, naming: FieldNaming): SpeechRequest;
  /** A context's settings: every field of a request but its text, by the same rules; throws the AppError. */
  settings(fields: unknown, naming: FieldNaming): SpeechContextRequest;
}

/** What speaks in a context and what its audio is: known when it opens, before any audio. */
export interface SpeechContextInfo extends SpeechResolution {
  readonly format: AudioFormat;
  readonly contentType: string;
  /** The rate a client decoding the bytes gets. */
  readonly sampleRate: number;
}

/** How much of a context's audio was handed out (to the door's socket or player). */
export interface AudioSent {
  /** Samples at the context's output rate. */
  readonly samples: number;
  readonly ms: number;
}

/**
 * One sentence's character and word times, in the context's audio time (ms from its first
 * sample). From the voice's model when it reports phoneme durations, else estimated from phoneme
 * counts scaled to the sentence's actual audio (`estimated`).
 */
export interface SentenceTimings {
  /** The sentence as spoken: after the key's lexicon and the front-end (numbers read out). */
  readonly text: string;
  /** Its characters, with a space after each word but the last; each lasts a while. */
  readonly chars: readonly string[];
  readonly charStartMs: readonly number[];
  readonly charDurationMs: readonly number[];
  readonly words: readonly { readonly word: string; readonly startMs: number; readonly endMs: number }[];
  readonly estimated: boolean;
}

/**
 * What a speech stream reports, per context and in that context's order. `audio` is the next
 * bytes in the context's format; `atMs` where they start in its audio. A `mark` comes once all the
 * audio before it was handed out; `flushed` once all the text before the flush was spoken;
 * `cleared` answers a clear; `done` ends a context that was closed (all of its audio out) and
 * `error` one that failed (other contexts go on).
 */
export type SpeechStreamEvent =
  | {
      readonly type: "audio";
      readonly context: string;
      readonly audio: Uint8Array;
      /** Samples in `audio` (0 for a codec's bytes that are not whole samples). */
      readonly samples: number;
      readonly atMs: number;
      /** The sentence these bytes begin, when the context asked for timings. */
      readonly timings?: SentenceTimings;
    }
  | { readonly type: "mark"; readonly context: string; readonly name: string; readonly audioMs: number }
  | { readonly type: "flushed"; readonly context: string }
  | { readonly type: "cleared"; readonly context: string; readonly sent: AudioSent }
  | { readonly type: "done"; readonly context: string; readonly sent: AudioSent }
  | { readonly type: "error"; readonly context: string; readonly error: AppError };

/** Who opens a speech stream and where its events go. */
export interface SpeechStreamInit {
  /** The caller's key: each context counts one request of its rate limit; its lexicon and cloned voices apply. */
  readonly key: ApiKeyRecord;
  /** The socket's or call's request id: each context's log line names it. */
  readonly requestId: string;
  /** The door, as logs name it (`deepgram`, `elevenlabs`, `ws`, `grpc`, `mrcp`, …). */
  readonly door: string;
  /**
   * Every event of every context. A promise returned for an `audio` event holds that context's
   * next sentence until it settles: a door with flow control (gRPC) keeps a slow reader's audio
   * from piling up in memory.
   */
  readonly onEvent: (event: SpeechStreamEvent) => void | Promise<void>;
  /** A shorter idle time the client asked for (ElevenLabs' `inactivity_timeout`); never above `tts.stream_idle_s`. */
  readonly idleSeconds?: number;
  /** The stream ended itself (nothing happened for `tts.stream_idle_s`): the door closes its socket. */
  readonly onEnd?: (error: AppError) => void;
}

/**
 * One speech stream per socket or call: named contexts, each speaking text that arrives in pieces
 * (as an LLM writes it) sentence by sentence as soon as each sentence is complete or flushed.
 * Limits (`tts.stream_max_contexts`, `tts.stream_max_queued_chars`, `tts.stream_idle_s`), the
 * key's rate limit (one request per context) and lexicon are applied here, for every door. Calls
 * that the client got wrong throw an AppError (400, 404, 429, 503) and change nothing; what fails
 * later arrives as an `error` event of its context.
 */
export interface SpeechStream {
  /** Opens a context: resolves its voice (D1–D5) and counts one request of the key's limit. */
  open(context: string, request: SpeechContextRequest): SpeechContextInfo;
  /**
   * Adds text. Plain text is spoken sentence by sentence, never half a word; a piece that is a
   * whole SSML document (`<speak…`) is spoken after what came before, with its marks.
   */
  text(context: string, text: string): void;
  /** Speaks what is pending even if its sentence is unfinished; `flushed` follows its audio. */
  flush(context: string): void;
  /** Barge-in: stops the context's audio now (nothing more of it is handed out), drops its queued text, and answers (and emits `cleared` with) how much audio was handed out. The context stays open. */
  clear(context: string): AudioSent;
  /**
   * No more text: what is queued is spoken, then `done`. With `dropUnflushed`, text after the last
   * flush (and any audio of it) is dropped at once instead.
   */
  close(context: string, options?: { readonly dropUnflushed?: boolean }): void;
  /** Whether `context` is open (opened and not yet done, failed or ended). */
  has(context: string): boolean;
  /** Client activity that changes nothing (a keep-alive): the idle time starts again. */
  touch(): void;
  /** Ends every context at once (the socket closed): no more events. */
  end(): void;
  /** Settles once the stream has ended and no context works any more. */
  readonly closed: Promise<void>;
}

/** The TTS service all front doors call. */
export interface TtsService {
  /** Synthesises and encodes a whole request (admission-controlled). */
  synthesize(request: SpeechRequest, options?: CallOptions): Promise<SpeechResult>;
  /** Synthesises sentence by sentence (admission-controlled); PCM at the voice's rate. */
  synthesizeStream(
    request: SpeechRequest,
    options?: CallOptions,
  ): { resolution: SpeechResolution; chunks: AsyncIterable<SpeechChunk> };
  /**
   * The one streaming start-up every streaming door shares: resolves the voice, waits for the first
   * audio (which fixes the rate), and encodes the rest as it is synthesised. Throws AppError before
   * any byte when the request cannot be served, including `Synthesis produced no audio`.
   */
  synthesizeEncodedStream(request: SpeechRequest, options?: CallOptions): Promise<EncodedSpeechStream>;
  /** Opens a speech stream for a socket or call (see {@link SpeechStream}). */
  openSpeechStream(init: SpeechStreamInit): SpeechStream;
  /** How a request will be read, sentence by sentence, without synthesising it (admission-controlled). */
  analyze(request: SpeechRequest, options?: CallOptions): Promise<SpeechAnalysis>;
  /** Built-in voices plus the caller's cloned voices. */
  listVoices(keyId?: string): VoiceInfo[];
  /** Which pack serves each built-in voice that has one (family, size, provider, warm-up). */
  voicePacks?(): VoicePackServing[];
}
