/**
 * The live core's decoder driver, one interface for both kinds of recogniser:
 *
 * - an OFFLINE recogniser (Whisper, NeMo CTC, Moonshine…): a partial re-decodes the open
 *   utterance; the final transcribes the utterance as a file of it would be (the file policy);
 * - a native STREAMING recogniser (cache-aware NeMo): one model stream per utterance, fed only
 *   the audio that arrived since the last partial, so a partial costs one chunk's compute and the
 *   final is the same stream finalised.
 *
 * The transcriber (./transcriber.ts) decides where utterances start and end and which recogniser
 * the call's dialect routes to; a decoder only turns audio into text.
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import type { CallOptions } from "../../core/call.ts";
import { AppError } from "../../errors/taxonomy.ts";
import {
  isStreamingRecognizer,
  type Recognizer,
  type RecognizerStream,
  type StreamingRecognizer,
} from "../recognizer.ts";
import type { LivePort, UtteranceText } from "./port.ts";

/** Decodes the utterances of one live call. */
export interface UtteranceDecoder {
  /** The whole utterance's text (times relative to it). */
  final(samples: Float32Array, recognizer: Recognizer, wholeSpan: boolean): Promise<UtteranceText>;
  /** A quick hypothesis of the open utterance; "" when skipped (engine busy). */
  partial(samples: Float32Array, recognizer: Recognizer): Promise<string>;
}

/** A partial the engine had no room for is skipped (""), not a failure of the call. */
export function skipWhenBusy(error: unknown, call: CallOptions): string {
  if (error instanceof AppError && (error.kind === "unavailable" || error.kind === "timeout") && !call.signal?.aborted)
    return "";
  throw error;
}

/** The decoder for `recognizer`: native streaming when it can stream, re-decoding otherwise. */
export function utteranceDecoder(engine: LivePort, recognizer: Recognizer, call: CallOptions): UtteranceDecoder {
  return isStreamingRecognizer(recognizer)
    ? new StreamingUtteranceDecoder(engine, recognizer, call)
    : offline(engine, call);
}

function offline(engine: LivePort, call: CallOptions): UtteranceDecoder {
  return {
    final: (samples, recognizer, wholeSpan) => engine.transcribeUtterance(samples, recognizer, wholeSpan, call),
    partial: async (samples, recognizer) => {
      try {
        const options = engine.hotwords ? { hotwords: engine.hotwords } : undefined;
        return (await engine.admitted(() => recognizer.recognize(samples, call.signal, options), call)).text.trim();
      } catch (error) {
        return skipWhenBusy(error, call);
      }
    },
  };
}

/** Samples compared to tell that a partial or final continues the utterance the stream holds. */
const IDENTITY_SAMPLES = 64;

/** One model stream per utterance (see the file comment); its recogniser is fixed at open. */
export class StreamingUtteranceDecoder implements UtteranceDecoder {
  private stream: RecognizerStream | undefined;
  private fed = 0;
  private head = new Float32Array(0);

  constructor(
    private readonly engine: Pick<LivePort, "admitted" | "observe">,
    private readonly recognizer: StreamingRecognizer,
    private readonly call: CallOptions,
  ) {}

  async partial(samples: Float32Array): Promise<string> {
    const stream = this.feed(samples);
    try {
      return (await this.engine.admitted(() => stream.decode(this.call.signal), this.call)).text.trim();
    } catch (error) {
      return skipWhenBusy(error, this.call);
    }
  }

  async final(samples: Float32Array): Promise<UtteranceText> {
    const started = performance.now();
    const stream = this.feed(samples);
    this.stream = undefined;
    this.fed = 0;
    const result = await this.engine.admitted(() => stream.finalize(this.call.signal), this.call);
    this.engine.observe((performance.now() - started) / 1000, samples.length / SPEECH_SAMPLE_RATE);
    return { text: result.text.trim(), ...(result.words ? { words: result.words } : {}) };
  }

  /** The stream of this utterance, fed up to the end of `samples` (a new stream for a new utterance). */
  private feed(samples: Float32Array): RecognizerStream {
    if (this.stream === undefined || !this.continues(samples)) {
      this.stream = this.recognizer.createStream();
      this.fed = 0;
      this.head = samples.slice(0, IDENTITY_SAMPLES);
    }
    if (samples.length > this.fed) this.stream.acceptWaveform(samples.subarray(this.fed));
    this.fed = Math.max(this.fed, samples.length);
    return this.stream;
  }

  /** Whether `samples` starts where the held stream's utterance starts and reaches at least as far. */
  private continues(samples: Float32Array): boolean {
    if (samples.length < this.fed) return false;
    for (let i = 0; i < this.head.length; i++) if (samples[i] !== this.head[i]) return false;
    return true;
  }
}
