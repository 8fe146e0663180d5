/**
 * Streaming NeMo CTC: each chunk's log-probabilities go through greedy CTC that carries the last
 * frame's best class across chunks (a token held over a chunk boundary is one token, and a blank
 * at the end of one chunk still separates a repeat at the start of the next). Word times come from
 * the stream-wide output frame of each token.
 */
import type { Tensor } from "onnxruntime-node";
import { argmax, floatData } from "../../../runtime/onnx-runner.ts";
import type { RecognizedText, RecognizerStream, StreamingRecognizer } from "../../recognizer.ts";
import { ctcText, type CtcToken } from "../../ctc/pipeline.ts";
import { CacheAwareEncoder } from "../encoder.ts";
import { ChunkedStream, chunkSeconds, type ChunkDecoder } from "../stream.ts";
import type { StreamingCtcConfig } from "./config.ts";

/** Longest segment handed over whole by offline callers: chunked decoding has no window limit. */
export const STREAMING_SEGMENT_SECONDS = 60;

/** Greedy CTC that can be fed chunk by chunk. */
export class StreamingCtcSearch implements ChunkDecoder {
  readonly tokens: CtcToken[] = [];
  private previous = -1;

  constructor(
    private readonly config: StreamingCtcConfig,
    /** Carry the previous class across chunks (tests turn it off to show what breaks). */
    private readonly carry = true,
  ) {}

  async decodeChunk(output: Tensor, frameOffset: number): Promise<number> {
    const data = floatData(output, "logprobs");
    const [, frames, vocab] = output.dims as number[];
    if (vocab !== this.config.tokens.length)
      throw new Error(`logprobs has ${vocab} classes, expected ${this.config.tokens.length}`);
    if (!this.carry) this.previous = -1;
    for (let t = 0; t < frames!; t++) {
      const id = argmax(data, t * vocab, (t + 1) * vocab);
      if (id !== this.config.blankId && id !== this.previous) this.tokens.push({ id, frame: frameOffset + t });
      this.previous = id;
    }
    return frames!;
  }

  text(): RecognizedText {
    const { subsamplingFactor } = this.config.meta;
    return ctcText(this.tokens, this.config.tokens, subsamplingFactor * 0.01);
  }
}

/** A streaming NeMo CTC pack as a {@link StreamingRecognizer}. */
export class StreamingCtcRecognizer implements StreamingRecognizer {
  readonly family = "nemo-streaming-ctc";
  readonly maxSegmentSeconds = STREAMING_SEGMENT_SECONDS;

  private constructor(
    readonly name: string,
    readonly config: StreamingCtcConfig,
    readonly encoder: CacheAwareEncoder,
  ) {}

  /** Opens the model. */
  static async load(config: StreamingCtcConfig, name: string, parallel = 1): Promise<StreamingCtcRecognizer> {
    const encoder = await CacheAwareEncoder.load(
      config.modelPath,
      config.meta,
      `${name}/${config.modelPath.split("/").pop()}`,
      parallel,
    );
    return new StreamingCtcRecognizer(name, config, encoder);
  }

  get provider(): "cpu" | "cuda" {
    return this.encoder.provider;
  }

  get chunkSeconds(): number {
    return chunkSeconds(this.config.meta.chunkShift);
  }

  createStream(): RecognizerStream {
    return new ChunkedStream(this.encoder, new StreamingCtcSearch(this.config));
  }

  async recognize(samples: Float32Array, signal?: AbortSignal): Promise<RecognizedText> {
    const stream = this.createStream();
    stream.acceptWaveform(samples);
    return stream.finalize(signal);
  }

  release(): Promise<void> {
    return this.encoder.release();
  }
}
