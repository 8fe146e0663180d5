/**
 * The transport-free ASR contract. REST, gRPC and `sawt asr` call an {@link AsrService}.
 */
import type { AppError } from "../errors/taxonomy.ts";
import type { CallOptions } from "./call.ts";

/** Allowed upload extensions (spec). */
export const UPLOAD_EXTENSIONS = ["flac", "mp3", "mp4", "mpeg", "mpga", "m4a", "ogg", "wav", "webm"] as const;

/** Response formats (D14). */
export const TRANSCRIPT_FORMATS = ["json", "text", "verbose_json", "srt", "vtt", "diarized_json"] as const;
/** One response format. */
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/** Most channels one upload or stream may be split into (`channels=split`); more is refused. */
export const MAX_CHANNELS = 4;

/**
 * Who said it, when a recording's channels are transcribed apart (`channels=split`): the channel
 * (0-based) and its speaker label (the request's `speakers`, `asr.speakers`, or `ch0`, `ch1`, …).
 */
export interface ChannelLabel {
  readonly channel?: number;
  readonly speaker?: string;
}

/** A word with times, when the model gives timestamps. */
export interface TranscriptWord extends ChannelLabel {
  readonly word: string;
  readonly start: number;
  readonly end: number;
}

/** A segment of a transcript (VAD segment or model segment). */
export interface TranscriptSegment extends ChannelLabel {
  readonly id: number;
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly words?: readonly TranscriptWord[];
  /** When formatted: the segment's spoken words (redacted too). */
  readonly textSpoken?: string;
  /** The segment's own dialect (best label of its speech), when a dialect-id pack is installed. */
  readonly dialect?: string;
  /** Decoder facts of searching recognisers (Whisper): temperature kept, mean log-probability, compression ratio. */
  readonly temperature?: number;
  readonly avgLogprob?: number;
  readonly compressionRatio?: number;
}

/**
 * Languages a transcription may ask for (D14, extended by issue #32): Arabic, which installed
 * packs serve, and English, which the built-in recogniser serves.
 */
export const TRANSCRIPTION_LANGUAGES = ["ar", "en"] as const;

/** A language a transcription may ask for. */
export type TranscriptionLanguage = (typeof TRANSCRIPTION_LANGUAGES)[number];

/**
 * A redacted span (issue #27): its type (`card`, `phone`, …) and the times of the words it hides,
 * in seconds, so a recording system can mute that audio; with split channels, its channel.
 */
export interface TimedRedaction extends ChannelLabel {
  readonly type: string;
  readonly start: number;
  readonly end: number;
}

/**
 * What a request asks of written forms and redaction, as its door read it from the wire (each door
 * names and checks its own fields: src/asr/format/request.ts): `itn` (default on) and the redaction
 * classes or types it adds. The ASR engine joins the server's floor (`asr.redact`, which no request
 * lowers), `asr.digits` and the redaction metric (src/asr/policy.ts) into a
 * {@link TranscriptFormatting}: a door never applies policy itself.
 */
export interface TranscriptFormattingRequest {
  readonly itn?: boolean;
  readonly redact?: ReadonlySet<string>;
}

/**
 * Written forms and redaction of a call's output as the engine applies them
 * (src/asr/format/transcript.ts): `itn` writes numbers, amounts, dates… as digits; `redact` names
 * the redaction types to hide (never logged).
 */
export interface TranscriptFormatting {
  readonly itn: boolean;
  readonly redact: ReadonlySet<string>;
  readonly digits: "western" | "arabic-indic";
  /** Hears each redaction once, when its output is final (the redaction metric). */
  readonly onRedaction?: (type: string) => void;
}

/** A finished transcription. */
export interface Transcript {
  readonly text: string;
  /** The language of the recogniser that transcribed it. */
  readonly language: TranscriptionLanguage;
  /** Detected dialect, or null without a dialect-id pack. */
  readonly dialect: string | null;
  /** Seconds of audio. */
  readonly duration: number;
  readonly segments: readonly TranscriptSegment[];
  /** Pack (folder name) that recognised the speech; absent when nothing was recognised. */
  readonly model?: string;
  /** Softmax probability of `dialect` under the call's mean dialect logits. */
  readonly dialectConfidence?: number;
  /** Every timed word of the call, in order, when the recogniser times words. */
  readonly words?: readonly TranscriptWord[];
  /** With split channels: each channel's own transcript facts (its text, dialect, pack), in channel order. */
  readonly channels?: readonly ChannelTranscript[];
  /** When formatted: the spoken words (redacted too), while `text` has the written forms. */
  readonly textSpoken?: string;
  /** When formatted with redaction: what was hidden and when. */
  readonly redactions?: readonly TimedRedaction[];
}

/** One channel of a split transcript: its own text and its own dialect (the agent and the caller may differ). */
export interface ChannelTranscript {
  readonly channel: number;
  readonly speaker: string;
  readonly text: string;
  readonly dialect: string | null;
  readonly dialectConfidence?: number;
  readonly model?: string;
}

/**
 * A phrase to favour in recognition (phrase boosting): CTC and transducer recognisers add `boost`
 * (log-probability, per token of the phrase) to hypotheses that spell it; Whisper reads the
 * phrases as prompt context. Bounds and the request syntax are in src/asr/boost/hotwords.ts.
 */
export interface Hotword {
  readonly phrase: string;
  /** Per-token bonus in [0, 10]; 0 keeps the phrase listed but neutral. */
  readonly boost: number;
}

/** What a transcription call may ask beyond {@link CallOptions}. */
export interface TranscriptionOptions extends CallOptions {
  /** Recogniser pack by folder name; a name that is not installed means the default (`whisper-1`). */
  readonly model?: string;
  /**
   * The audio's language: `ar` goes to the installed packs, `en` to the built-in recogniser;
   * omitted means the default recogniser (an installed pack, else the built-in one).
   */
  readonly language?: TranscriptionLanguage;
  /** Text the audio continues; used by recognisers that take context (Whisper), ignored by others. */
  readonly prompt?: string;
  /** First sampling temperature in [0, 1] (Whisper; 0 = greedy with temperature fallback). */
  readonly temperature?: number;
  /**
   * Phrases the request asks to favour; the engine adds the key's stored list (the call's `keyId`)
   * itself. None at all keeps greedy decoding.
   */
  readonly hotwords?: readonly Hotword[];
  /**
   * Called after each decoded piece with the transcript's text so far (joined by the same rule as
   * the final text, so each call's text extends the last): what streamed REST transcription sends.
   */
  readonly onText?: (textSoFar: string, label?: Required<ChannelLabel>) => void;
  /**
   * `split`: each channel of a multi-channel recording is transcribed apart and labelled
   * (at most {@link MAX_CHANNELS}; a mono recording is refused); `mix`: one mono mix (OpenAI's
   * answer). Absent: the server's `asr.split_channels` (`auto` splits 2-channel files only).
   */
  readonly channels?: "split" | "mix";
  /** Speaker labels by channel (`agent,customer`); channels without one are `ch<n>`. */
  readonly speakers?: readonly string[];
  /**
   * What the request asks of written forms and redaction (absent: the defaults); the engine adds
   * the server's floor and applies them to the transcript and to `onText`.
   */
  readonly formatting?: TranscriptFormattingRequest;
}

/** Server-side turn detection of a live transcription (OpenAI's server_vad settings). */
export interface TurnDetection {
  /** Speech probability (Silero, or the energy detector's level score) at which speech starts, 0–1. */
  readonly threshold: number;
  /** Audio kept before the detected start of speech. */
  readonly prefixPaddingMs: number;
  /** Silence that ends an utterance. */
  readonly silenceDurationMs: number;
}

/** OpenAI's server_vad defaults, used by every live door that does not set its own. */
export const DEFAULT_TURN_DETECTION: TurnDetection = { threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 };

/** How a live transcription is run. */
export interface LiveTranscriptionOptions {
  /**
   * How utterances are cut: `turns` (default) by `turnDetection` (OpenAI's server VAD settings),
   * `segments` by the file's segmentation rule, so a stream's finals are a file's utterance
   * segments (gRPC StreamingRecognize).
   */
  readonly endpointing?: "turns" | "segments";
  /** Null (with `turns`): the client commits its utterances (no server VAD). */
  readonly turnDetection: TurnDetection | null;
  /** Audio between two re-decodes of the open utterance (partial results); 0 turns partials off. */
  readonly partialIntervalMs: number;
  /**
   * Speaker labels by channel of an interleaved multi-channel stream (the live session runs one
   * transcription per channel and labels their events); channels without one are `ch<n>`.
   */
  readonly speakers?: readonly string[];
  /**
   * Phrases the call asks to favour in every final; the live core adds the key's stored list
   * (src/asr/policy.ts), so what reaches the engine's `openLive` is the whole list.
   */
  readonly hotwords?: readonly Hotword[];
  /** The call's language, as {@link TranscriptionOptions.language}. */
  readonly language?: TranscriptionLanguage;
  /**
   * What the call asks of written forms and redaction; the live session applies them with the
   * server's floor to every event, for every door.
   */
  readonly formatting?: TranscriptFormattingRequest;
  /**
   * Milliseconds of audio after the last word of the last final with words before an
   * `utterance_end` event (Deepgram's `utterance_end_ms`), unless a partial with words came since;
   * absent: none. Missing audio counts as silence (the live core's wall clock), so a caller that
   * stops sending still gets it.
   */
  readonly utteranceEndMs?: number;
  /**
   * The door matches finals against the caller's own grammars (MRCP SRGS and DTMF requests: the
   * digits an IVR asked for, e.g. to take a payment). Each final then also carries `unformatted`,
   * the recogniser's words before written forms and redaction, for matching only: what the door
   * returns as a free-form transcript is the formatted `text`, and neither is ever logged.
   */
  readonly grammarMatching?: boolean;
}

/**
 * THE live event model: what a live transcription reports, in audio order, whatever the door;
 * each door translates it to its wire format. `*Ms` times are milliseconds of audio since the
 * start of the call, `start`/`end` seconds.
 */
export type LiveEvent =
  | (ChannelLabel & { readonly type: "speech_started"; readonly audioStartMs: number })
  | (ChannelLabel & { readonly type: "speech_stopped"; readonly audioEndMs: number })
  | (ChannelLabel & { readonly type: "committed"; readonly audioStartMs: number; readonly audioEndMs: number })
  | (ChannelLabel & {
      readonly type: "partial";
      readonly text: string;
      readonly start: number;
      readonly end: number;
      /** The call's dialect decided so far. */
      readonly dialect: string | null;
    })
  | (ChannelLabel & {
      readonly type: "final";
      readonly text: string;
      readonly start: number;
      readonly end: number;
      /** The call's dialect by the file path's rule over the speech heard so far (null without a dialect-id pack). */
      readonly dialect: string | null;
      /** Softmax probability of `dialect`. */
      readonly dialectConfidence?: number;
      /** Timed words, in seconds since the start of the call, when the recogniser times words. */
      readonly words?: readonly TranscriptWord[];
      /** When formatted: the spoken words (redacted too). */
      readonly textSpoken?: string;
      /** With {@link LiveTranscriptionOptions.grammarMatching}: the recogniser's words, for matching only. */
      readonly unformatted?: string;
      /** When formatted with redaction: what was hidden and when. */
      readonly redactions?: readonly TimedRedaction[];
      /** exp(mean token log-probability) when the recogniser searches (Whisper). */
      readonly confidence?: number;
      /** Compute time of the decode that produced this final (seconds). */
      readonly computeSeconds: number;
    })
  /**
   * No new word for {@link LiveTranscriptionOptions.utteranceEndMs} after the last final's words:
   * `lastWordEnd` is that word's end (the final's end when the recogniser does not time words).
   */
  | (ChannelLabel & { readonly type: "utterance_end"; readonly lastWordEnd: number })
  /** The call failed and ends (the session then reports its end). */
  | { readonly type: "error"; readonly error: AppError };

/**
 * One live transcription: 16 kHz chunks in, {@link LiveEvent}s out through the callback given at
 * open. Calls must not overlap (the door awaits each); a failure rejects the call that caused it.
 */
export interface LiveTranscription {
  /** Adds audio; turn detection may start or end an utterance (a final follows its end). */
  push(samples: Float32Array): Promise<void>;
  /** Ends the open utterance now (or, without turn detection, everything since the last commit). */
  commit(): Promise<void>;
  /** Drops the audio not yet committed. */
  clear(): void;
  /** Audio held and not yet committed, in milliseconds. */
  readonly pendingMs: number;
  /** Ends the stream: open speech becomes a final. */
  finish(): Promise<void>;
}

/** The ASR service all front doors call. */
export interface AsrService {
  /** Decodes (hardened ffmpeg) and transcribes an uploaded file. Throws AppError. */
  transcribeFile(path: string, options?: TranscriptionOptions): Promise<Transcript>;
  /** Transcribes 16 kHz mono float samples. */
  transcribeSamples(samples: Float32Array, options?: TranscriptionOptions): Promise<Transcript>;
  /**
   * `count` channels of one recording, each transcribed apart and merged in time order as a split
   * file's are (labels: `options.speakers`, else `asr.speakers`); `channel(n)` gives one channel's
   * 16 kHz samples when its turn comes, so only one is held at a time.
   */
  transcribeChannelSamples(
    count: number,
    channel: (n: number) => Float32Array,
    options?: TranscriptionOptions,
  ): Promise<Transcript>;
  /**
   * Throws the 400 a live transcription in `language` would end with when nothing loaded serves it,
   * so a door that answers before the audio comes (a call's `POST`) can refuse instead of opening
   * a call that ends at once.
   */
  checkLanguage(language: TranscriptionLanguage): void;
  /** Opens a live transcription on the live core (every live door): endpointing, partials, a final per utterance. */
  openLive(options: LiveTranscriptionOptions, emit: (event: LiveEvent) => void, call?: CallOptions): LiveTranscription;
}
