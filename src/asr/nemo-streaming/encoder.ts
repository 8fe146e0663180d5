/**
 * What NeMo's cache-aware streaming exports share (sherpa-onnx's online NeMo CTC and transducer
 * layouts): the encoder metadata and the encoder session with its three carried caches.
 *
 * Encoder inputs, by position as sherpa-onnx feeds them: features [1, feat_dim, window_size],
 * length int64 [1] (= window_size), `cache_last_channel` [1, d1, d2, d3], `cache_last_time`
 * [1, t1, t2, t3], `cache_last_channel_len` int64 [1]; outputs: the chunk's output (CTC
 * log-probabilities [1, T', vocab] or transducer encoder frames [1, dim, T']), its length, and the
 * three next caches in the same order. Each chunk is `window_size` feature frames starting where
 * the previous one started plus `chunk_shift` (window = chunk + NeMo's pre-encode cache, so
 * consecutive windows overlap by window_size − chunk_shift frames); caches start at zero.
 * Metadata: `window_size`, `chunk_shift`, `subsampling_factor`, `vocab_size` (blank excluded),
 * `cache_last_channel_dim{1,2,3}`, `cache_last_time_dim{1,2,3}`, `normalize_type` (must be empty:
 * streaming features are not normalised), optional `feat_dim`.
 */
import { MetadataReader, missingIo, type OnnxModelInfo } from "../../models/header.ts";
import { f32, i64, openSession, type Session, type Tensor } from "../../onnx/runner.ts";

/** The streaming facts of an encoder's metadata. */
export interface StreamingMeta {
  readonly windowSize: number;
  readonly chunkShift: number;
  readonly subsamplingFactor: number;
  readonly vocabSize: number;
  readonly featDim: number;
  readonly channelCache: readonly [number, number, number];
  readonly timeCache: readonly [number, number, number];
}

/** The cache input names NeMo exports; their presence marks a streaming encoder. */
export const CACHE_INPUTS = ["cache_last_channel", "cache_last_time", "cache_last_channel_len"] as const;

/** Whether a header declares NeMo's streaming caches. */
export function isStreamingEncoder(info: OnnxModelInfo | null): boolean {
  return info?.inputs.some((i) => i.name === CACHE_INPUTS[0]) ?? false;
}

/** Reads the streaming metadata sherpa-onnx requires; problems land in `problems`. */
export function readStreamingMeta(info: OnnxModelInfo, file: string, problems: string[]): StreamingMeta {
  const meta = new MetadataReader(info.metadata, file);
  const dims = (prefix: string) => [1, 2, 3].map((i) => meta.int(`${prefix}_dim${i}`)) as [number, number, number];
  const result = {
    windowSize: meta.int("window_size"),
    chunkShift: meta.int("chunk_shift"),
    subsamplingFactor: meta.int("subsampling_factor"),
    vocabSize: meta.int("vocab_size"),
    featDim: meta.intOr(
      "feat_dim",
      typeof info.inputs[0]?.dims?.[1] === "number" ? (info.inputs[0].dims[1] as number) : 80,
    ),
    channelCache: dims("cache_last_channel"),
    timeCache: dims("cache_last_time"),
  };
  const normalize = meta.stringOr("normalize_type", "").trim();
  if (!["", "NA"].includes(normalize))
    problems.push(`${file} metadata normalize_type ${JSON.stringify(normalize)} cannot be streamed`);
  problems.push(...meta.problems);
  problems.push(...missingIo(info, [...CACHE_INPUTS], [], file));
  const sizes = [result.windowSize, result.chunkShift, result.subsamplingFactor, result.featDim];
  if (meta.problems.length === 0 && sizes.some((n) => n < 1)) problems.push(`${file} metadata has a non-positive size`);
  if (result.chunkShift > result.windowSize) problems.push(`${file} metadata chunk_shift exceeds window_size`);
  return result;
}

/** The three carried caches. */
export type EncoderCaches = readonly [Tensor, Tensor, Tensor];

/** One chunk's output and the caches to carry into the next. */
export interface ChunkOutput {
  readonly output: Tensor;
  readonly caches: EncoderCaches;
}

/** The streaming encoder session (for CTC exports, the whole model). */
export class CacheAwareEncoder {
  private constructor(
    private readonly session: Session,
    readonly meta: StreamingMeta,
    readonly provider: "cpu" | "cuda",
  ) {}

  /** Opens the encoder at `path`. */
  static async load(path: string, meta: StreamingMeta, label: string, parallel = 1): Promise<CacheAwareEncoder> {
    const { session, provider } = await openSession(path, { label, parallel });
    return new CacheAwareEncoder(session, meta, provider);
  }

  /** Zero caches and a zero cache length, as a stream starts. */
  initialCaches(): EncoderCaches {
    const [c1, c2, c3] = this.meta.channelCache;
    const [t1, t2, t3] = this.meta.timeCache;
    return [
      f32(new Float32Array(c1 * c2 * c3), [1, c1, c2, c3]),
      f32(new Float32Array(t1 * t2 * t3), [1, t1, t2, t3]),
      i64([0], [1]),
    ];
  }

  /** Runs one window of features laid out `[featDim, window_size]` with the carried caches. */
  async run(features: Float32Array, caches: EncoderCaches): Promise<ChunkOutput> {
    const { featDim, windowSize } = this.meta;
    const [x, length, channel, time, channelLength] = this.session.inputNames;
    const out = await this.session.run({
      [x!]: f32(features, [1, featDim, windowSize]),
      [length!]: i64([windowSize], [1]),
      [channel!]: caches[0],
      [time!]: caches[1],
      [channelLength!]: caches[2],
    });
    // Output 1 is the output length (discarded, as sherpa-onnx does); 2–4 are the next caches.
    const names = this.session.outputNames;
    const next = [out[names[2]!], out[names[3]!], out[names[4]!]];
    if (out[names[0]!] === undefined || next.some((t) => t === undefined))
      throw new Error("streaming encoder returned too few outputs");
    return { output: out[names[0]!]!, caches: next as unknown as EncoderCaches };
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
