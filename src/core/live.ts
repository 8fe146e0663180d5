/**
 * The live core as a feature outside ASR reaches it (a call session, issue 41): a live
 * transcription opened for a key, with the live core's intake, limits, decoding and the key's
 * policy (its phrase list, the redaction floor), events in {@link LiveEvent}s. The ASR feature's
 * live session (src/asr/live/session.ts `openLiveSession`) is what the wiring hands over; the
 * caller passes only what its own wire asked for, as every live door does.
 */
import type { LiveChannelsFormat } from "../audio/live-channels.ts";
import type { AppError } from "../errors/taxonomy.ts";
import type { StreamDoor } from "../serving/metrics.ts";
import type { ApiKeyRecord } from "../store/keys.ts";
import type { LiveEvent, LiveTranscriptionOptions } from "./asr.ts";

/** Who opens a live call and where its events go. */
export interface LiveCallInit {
  /** The door, as metrics and the stream slots name it. */
  readonly door: StreamDoor;
  readonly requestId: string;
  /** The key the call runs for: admitted (one request of its rate limit), its policy applied. */
  readonly key: ApiKeyRecord;
  /** Every engine event, in order. */
  readonly onEvent: (event: LiveEvent) => void;
  /** The call ended: `error` says why when it was not a normal end or an abandon. */
  readonly onEnd: (error: AppError | undefined) => void;
}

/** One live transcription, as the live core runs it. */
export interface LiveCall {
  /** Aborted when the call ends. */
  readonly signal: AbortSignal;
  /** Starts the engine's transcription with what the wire asked (the key's policy is added). */
  configure(options: LiveTranscriptionOptions, format: LiveChannelsFormat): void;
  /** Queues audio bytes in the format; settles once they are transcribed. */
  audio(bytes: Uint8Array): Promise<void>;
  /** Client activity that is not audio: the idle timer starts again. */
  touch(): void;
  /** Transcribes what is queued, closes open speech as a final, then ends normally. */
  finish(): Promise<void>;
  /** The caller went away: everything stops now. */
  abandon(): void;
}

/**
 * Opens a live call: the key admitted, the ASR engine ready, a stream slot free; throws the
 * AppError (429, 503) otherwise.
 */
export type OpenLiveCall = (init: LiveCallInit, format: LiveChannelsFormat) => LiveCall;
