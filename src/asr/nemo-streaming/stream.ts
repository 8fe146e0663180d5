/**
 * The chunk loop every cache-aware streaming family runs: audio → incremental features → windows
 * of `window_size` frames advancing by `chunk_shift`, each run through the encoder with the caches
 * the previous window returned; the family decodes each chunk's output (CTC or transducer search)
 * and says what the text is so far.
 */
import type { Tensor } from "onnxruntime-node";
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import type { RecognizedText, RecognizerStream } from "../recognizer.ts";
import type { CacheAwareEncoder, EncoderCaches } from "./encoder.ts";
import { StreamingFeatures } from "./features.ts";

/** What a family does with each chunk's encoder output. */
export interface ChunkDecoder {
  /**
   * Decodes one chunk's output; `frameOffset` is the index of its first output frame in the
   * stream. Returns how many output frames the chunk held.
   */
  decodeChunk(output: Tensor, frameOffset: number): Promise<number>;
  /** Text and word times so far. */
  text(): RecognizedText;
}

/** Samples of zeros that finalize appends so the last audio frames are decoded: one window plus one chunk. */
export function tailPadding(windowSize: number, chunkShift: number): number {
  return (windowSize + chunkShift) * 160 + 200;
}

/** One stream through a cache-aware encoder. */
export class ChunkedStream implements RecognizerStream {
  private readonly features: StreamingFeatures;
  private caches: EncoderCaches;
  private processed = 0;
  private outputFrames = 0;
  private finished = false;

  constructor(
    private readonly encoder: CacheAwareEncoder,
    private readonly decoder: ChunkDecoder,
  ) {
    this.features = new StreamingFeatures(encoder.meta.featDim);
    this.caches = encoder.initialCaches();
  }

  acceptWaveform(samples: Float32Array): void {
    if (this.finished) throw new Error("the stream is finalized");
    this.features.accept(samples);
  }

  async decode(signal?: AbortSignal): Promise<RecognizedText> {
    const { windowSize, chunkShift } = this.encoder.meta;
    while (this.processed + windowSize <= this.features.available) {
      signal?.throwIfAborted();
      const window = this.features.window(this.processed, windowSize);
      const { output, caches } = await this.encoder.run(window, this.caches);
      this.caches = caches;
      this.processed += chunkShift;
      this.features.dropBefore(this.processed);
      this.outputFrames += await this.decoder.decodeChunk(output, this.outputFrames);
    }
    return this.decoder.text();
  }

  async finalize(signal?: AbortSignal): Promise<RecognizedText> {
    if (!this.finished) {
      const { windowSize, chunkShift } = this.encoder.meta;
      this.features.accept(new Float32Array(tailPadding(windowSize, chunkShift)));
      this.finished = true;
    }
    return this.decode(signal);
  }
}

/** Seconds one chunk advances by. */
export function chunkSeconds(chunkShift: number): number {
  return (chunkShift * 160) / SPEECH_SAMPLE_RATE;
}
