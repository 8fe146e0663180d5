/**
 * Live utterances decoded by a streaming recogniser (cache-aware NeMo models) natively: one model
 * stream per utterance, fed only the audio that arrived since the last partial, so a partial costs
 * one chunk's compute instead of re-decoding the whole open utterance, and the final is the same
 * stream finalised. The live session (./live.ts) keeps deciding where utterances start and end;
 * this is its {@link UtteranceDecoder} when the recogniser can stream.
 */
import type { DialectIdentifier, RecognizerStream, StreamingRecognizer } from "../recognizer.ts";
import type { UtteranceDecoder } from "./live.ts";

/** Samples compared to tell that a partial or final continues the utterance the stream holds. */
const IDENTITY_SAMPLES = 64;

/** Runs one recognition under the engine's admission (as every decode of a live session is). */
export type Admitted = <T>(job: () => Promise<T>) => Promise<T>;

/** See the file comment. */
export class StreamingUtteranceDecoder implements UtteranceDecoder {
  private stream: RecognizerStream | undefined;
  private fed = 0;
  private head = new Float32Array(0);

  constructor(
    private readonly recognizer: StreamingRecognizer,
    private readonly dialect: DialectIdentifier | null,
    private readonly admitted: Admitted,
  ) {}

  async partial(samples: Float32Array, signal?: AbortSignal): Promise<string> {
    const stream = this.feed(samples);
    return (await this.admitted(() => stream.decode(signal))).text.trim();
  }

  async final(samples: Float32Array, signal?: AbortSignal): Promise<{ text: string; dialect: string | null }> {
    const stream = this.feed(samples);
    this.stream = undefined;
    this.fed = 0;
    const result = await this.admitted(() => stream.finalize(signal));
    const identifier = this.dialect;
    // Dialect id is model work too: it runs under the same admission as the recognition.
    const dialect = identifier ? await this.admitted(() => identifier.identify(samples, signal)) : null;
    return { text: result.text.trim(), dialect };
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
