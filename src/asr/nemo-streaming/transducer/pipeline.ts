/**
 * Streaming NeMo transducer: each chunk's encoder frames go through greedy RNNT that carries the
 * prediction network's output and states from chunk to chunk (src/asr/transducer/pipeline.ts's
 * search, fed in pieces). Word times come from the stream-wide output frame of each token.
 */
import type { Tensor } from "onnxruntime-node";
import { floatData } from "../../../onnx/runner.ts";
import type { RecognizedText, RecognizeOptions, RecognizerStream, StreamingRecognizer } from "../../recognizer.ts";
import { PhraseTokenizer } from "../../boost/tokenize.ts";
import { BiasedRnntSearch } from "../../transducer/beam.ts";
import { encoderFrames, openJoint, type PredictionJoint, type TransducerJoint } from "../../transducer/model.ts";
import {
  FEATURE_FRAME_SECONDS,
  RNNT_MAX_SYMBOLS_PER_FRAME,
  RnntSearch,
  transducerText,
} from "../../transducer/pipeline.ts";
import { STREAMING_SEGMENT_SECONDS } from "../ctc/pipeline.ts";
import type { ContextGraph } from "../../boost/context-graph.ts";
import { CacheAwareEncoder } from "../encoder.ts";
import { ChunkedStream, chunkSeconds, type ChunkDecoder } from "../stream.ts";
import type { StreamingTransducerConfig } from "./config.ts";

/**
 * RNNT search over chunks of encoder output laid out [1, dim, T']: greedy, or with boosted
 * phrases the biased search (../../transducer/beam.ts), whose text is greedy's unless a phrase won.
 */
export class StreamingRnntDecoder implements ChunkDecoder {
  private readonly search: RnntSearch | BiasedRnntSearch;

  constructor(
    private readonly config: StreamingTransducerConfig,
    joint: TransducerJoint,
    graph: ContextGraph | null = null,
  ) {
    this.search =
      graph === null
        ? new RnntSearch(joint, config.blankId)
        : new BiasedRnntSearch(joint, config.blankId, graph, RNNT_MAX_SYMBOLS_PER_FRAME);
  }

  async decodeChunk(output: Tensor, frameOffset: number): Promise<number> {
    const [, dim, frames] = output.dims as number[];
    await this.search.push(encoderFrames(floatData(output, "encoder output"), dim!, frames!, frames!), frameOffset);
    return frames!;
  }

  text(): RecognizedText {
    const tokens = this.search instanceof RnntSearch ? this.search.tokens : this.search.result().tokens;
    return transducerText(tokens, this.config.tokens, this.config.meta.subsamplingFactor * FEATURE_FRAME_SECONDS);
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
  ) {
    this.phrases = new PhraseTokenizer(config.tokens);
  }

  /** Spells boosted phrases in the pack's vocabulary. */
  private readonly phrases: PhraseTokenizer;

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

  /** One stream over the whole segment; boosted phrases bias its search (files, not live streams). */
  async recognize(
    samples: Float32Array,
    signal?: AbortSignal,
    options: RecognizeOptions = {},
  ): Promise<RecognizedText> {
    const graph = this.phrases.graph(options.hotwords);
    const stream = new ChunkedStream(this.encoder, new StreamingRnntDecoder(this.config, this.joint, graph));
    stream.acceptWaveform(samples);
    return stream.finalize(signal);
  }

  async release(): Promise<void> {
    await Promise.all([this.encoder.release(), this.joint.release()]);
  }
}
