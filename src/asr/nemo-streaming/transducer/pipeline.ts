/**
 * Streaming NeMo transducer: each chunk's encoder frames go through greedy RNNT that carries the
 * prediction network's output and states from chunk to chunk (src/asr/transducer/pipeline.ts's
 * search, fed in pieces). Word times come from the stream-wide output frame of each token.
 */
import type { Tensor } from "onnxruntime-node";
import { floatData } from "../../../runtime/onnx-runner.ts";
import type { RecognizedText, RecognizerStream, StreamingRecognizer } from "../../recognizer.ts";
import { encoderFrames, openJoint, type PredictionJoint, type TransducerJoint } from "../../transducer/model.ts";
import { FEATURE_FRAME_SECONDS, RnntSearch, transducerText } from "../../transducer/pipeline.ts";
import { STREAMING_SEGMENT_SECONDS } from "../ctc/pipeline.ts";
import { CacheAwareEncoder } from "../encoder.ts";
import { ChunkedStream, chunkSeconds, type ChunkDecoder } from "../stream.ts";
import type { StreamingTransducerConfig } from "./config.ts";

/** RNNT search over chunks of encoder output laid out [1, dim, T']. */
export class StreamingRnntDecoder implements ChunkDecoder {
  private readonly search: RnntSearch;

  constructor(
    private readonly config: StreamingTransducerConfig,
    joint: TransducerJoint,
  ) {
    this.search = new RnntSearch(joint, config.blankId);
  }

  async decodeChunk(output: Tensor, frameOffset: number): Promise<number> {
    const [, dim, frames] = output.dims as number[];
    await this.search.push(encoderFrames(floatData(output, "encoder output"), dim!, frames!, frames!), frameOffset);
    return frames!;
  }

  text(): RecognizedText {
    return transducerText(
      this.search.tokens,
      this.config.tokens,
      this.config.meta.subsamplingFactor * FEATURE_FRAME_SECONDS,
    );
  }
}

/** A streaming NeMo transducer pack as a {@link StreamingRecognizer}. */
export class StreamingTransducerRecognizer implements StreamingRecognizer {
  readonly family = "nemo-streaming-transducer";
  readonly maxSegmentSeconds = STREAMING_SEGMENT_SECONDS;

  private constructor(
    readonly name: string,
    readonly config: StreamingTransducerConfig,
    readonly encoder: CacheAwareEncoder,
    readonly joint: PredictionJoint,
    readonly provider: "cpu" | "cuda",
  ) {}

  /** Opens the three sessions. */
  static async load(
    config: StreamingTransducerConfig,
    name: string,
    parallel = 1,
  ): Promise<StreamingTransducerRecognizer> {
    const encoder = await CacheAwareEncoder.load(
      config.encoderPath,
      config.meta,
      `${name}/${config.encoderPath.split("/").pop()}`,
      parallel,
    );
    try {
      const paths = { decoder: config.decoderPath, joiner: config.joinerPath };
      const { joint, provider } = await openJoint(paths, config.predRnnLayers, config.predHidden, name, parallel);
      const both = provider === "cuda" && encoder.provider === "cuda" ? "cuda" : "cpu";
      return new StreamingTransducerRecognizer(name, config, encoder, joint, both);
    } catch (error) {
      await encoder.release();
      throw error;
    }
  }

  get chunkSeconds(): number {
    return chunkSeconds(this.config.meta.chunkShift);
  }

  createStream(): RecognizerStream {
    return new ChunkedStream(this.encoder, new StreamingRnntDecoder(this.config, this.joint));
  }

  async recognize(samples: Float32Array, signal?: AbortSignal): Promise<RecognizedText> {
    const stream = this.createStream();
    stream.acceptWaveform(samples);
    return stream.finalize(signal);
  }

  async release(): Promise<void> {
    await Promise.all([this.encoder.release(), this.joint.release()]);
  }
}
