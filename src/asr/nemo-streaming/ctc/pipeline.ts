/**
 * Streaming NeMo CTC: each chunk's log-probabilities go through greedy CTC that carries the last
 * frame's best class across chunks (a token held over a chunk boundary is one token, and a blank
 * at the end of one chunk still separates a repeat at the start of the next). Word times come from
 * the stream-wide output frame of each token.
 */
import type { Tensor } from "onnxruntime-node";
import { argmax, floatData } from "../../../onnx/runner.ts";
import type { RecognizedText, RecognizeOptions, RecognizerStream, StreamingRecognizer } from "../../recognizer.ts";
import { concatSamples } from "../../../audio/concat.ts";
import { PhraseTokenizer } from "../../boost/tokenize.ts";
import type { CtcOutput } from "../../ctc/model.ts";
import { biasedCtc } from "../../ctc/prefix-beam.ts";
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
  /** Every chunk's log-probabilities, kept for a biased search over the whole segment. */
  private readonly kept: Float32Array[] | null;

  constructor(
    private readonly config: StreamingCtcConfig,
    /** Carry the previous class across chunks (tests turn it off to show what breaks). */
    private readonly carry = true,
    keep = false,
  ) {
    this.kept = keep ? [] : null;
  }

  /** The kept log-probabilities as one `[frames, vocab]` output (empty unless constructed to keep). */
  output(): CtcOutput {
    const vocab = this.config.tokens.length;
    const logprobs = concatSamples(this.kept ?? []);
    return { logprobs, frames: logprobs.length / vocab, vocab };
  }

  async decodeChunk(output: Tensor, frameOffset: number): Promise<number> {
    const data = floatData(output, "logprobs");
    const [, frames, vocab] = output.dims as number[];
    if (vocab !== this.config.tokens.length)
      throw new Error(`logprobs has ${vocab} classes, expected ${this.config.tokens.length}`);
    this.kept?.push(data.slice(0, frames! * vocab));
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
  ) {
    this.phrases = new PhraseTokenizer(config.tokens);
  }

  /** Spells boosted phrases in the pack's vocabulary. */
  private readonly phrases: PhraseTokenizer;

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

  /**
   * One stream over the whole segment; with boosted phrases the biased prefix beam search runs over
   * its log-probabilities and its text is kept when it spells a phrase (files, not live streams).
   */
  async recognize(
    samples: Float32Array,
    signal?: AbortSignal,
    options: RecognizeOptions = {},
  ): Promise<RecognizedText> {
    const graph = this.phrases.graph(options.hotwords);
    const search = new StreamingCtcSearch(this.config, true, graph !== null);
    const stream = new ChunkedStream(this.encoder, search);
    stream.acceptWaveform(samples);
    const greedy = await stream.finalize(signal);
    if (graph === null) return greedy;
    const biased = biasedCtc(search.output(), this.config.blankId, graph);
    return biased.matched
      ? ctcText(biased.tokens, this.config.tokens, this.config.meta.subsamplingFactor * 0.01)
      : greedy;
  }

  release(): Promise<void> {
    return this.encoder.release();
  }
}
