/**
 * The Hugging Face seq2seq decoder contract (Optimum's ONNX export, as onnx-community publishes it
 * for transformers.js), shared by the families that use it (Moonshine, Whisper in the HF layout).
 * Two shapes are published:
 *
 * - merged (`decoder_model_merged.onnx`): `input_ids` int64 [1, n], `encoder_hidden_states`,
 *   `use_cache_branch` bool [1] and `past_key_values.<layer>.{decoder,encoder}.{key,value}`
 *   [1, heads, len, head_dim] → `logits` [1, n, vocab] and `present.<layer>.…` of the same names.
 *   The first step runs with empty (length 0) caches and `use_cache_branch = false` and computes
 *   the cross-attention keys/values; every later step feeds back all `present.*.decoder.*` (one
 *   position longer each step) and the FIRST step's `present.*.encoder.*` (later steps return them
 *   unchanged or empty), with `use_cache_branch = true` (transformers.js
 *   `src/models/modeling_utils.js` decoder_forward sets it from whether a cache exists).
 * - split (`decoder_model.onnx` + `decoder_with_past_model.onnx`, Optimum's older export and
 *   `--no-post-process`): the first step runs `decoder_model` (no past inputs; it returns every
 *   present), later steps `decoder_with_past_model` with the caches as above.
 *
 * Feeds are limited to the inputs a session declares (transformers.js picks feeds by the session's
 * input names the same way): an export that dropped `encoder_hidden_states` from the with-past
 * decoder, or has no `use_cache_branch`, is fed without them.
 */
import { bool, f32, floatData, i64, type Session, type Tensor } from "../../onnx/runner.ts";

/** Cache geometry: decoder layers, key/value heads and head size. */
export interface CacheGeometry {
  readonly layers: number;
  readonly heads: number;
  readonly headDim: number;
}

/** The decoder sessions of one pack and the input names each declares (null: not known, feed all). */
export type Seq2SeqDecoderSessions =
  | { readonly kind: "merged"; readonly merged: Session; readonly inputs: ReadonlySet<string> | null }
  | {
      readonly kind: "split";
      readonly first: Session;
      readonly withPast: Session;
      readonly firstInputs: ReadonlySet<string> | null;
      readonly withPastInputs: ReadonlySet<string> | null;
    };

const KINDS = ["key", "value"] as const;
const PARTS = ["decoder", "encoder"] as const;

type Cache = Readonly<Record<string, Tensor>>;

function pick(feeds: Record<string, Tensor>, declared: ReadonlySet<string> | null): Record<string, Tensor> {
  if (declared === null) return feeds;
  return Object.fromEntries(Object.entries(feeds).filter(([name]) => declared.has(name)));
}

/** One decode over one encoding: feed the prompt, then one token at a time. */
export class Seq2SeqRun {
  private cache: Cache | null = null;

  constructor(
    private readonly decoder: Seq2SeqDecoder,
    private readonly hidden: Tensor,
  ) {}

  /** Feeds `ids` after everything fed so far; the logits of the last position. */
  async feed(ids: readonly number[]): Promise<Float32Array> {
    const { logits, cache } = await this.decoder.step(ids, this.hidden, this.cache);
    this.cache = cache;
    return logits;
  }
}

/** Runs a pack's decoder sessions by the cache protocol above. */
export class Seq2SeqDecoder {
  private readonly selfFetches: readonly string[];

  constructor(
    private readonly sessions: Seq2SeqDecoderSessions,
    private readonly geometry: CacheGeometry,
  ) {
    const names = ["logits"];
    for (let layer = 0; layer < geometry.layers; layer++)
      for (const kind of KINDS) names.push(`present.${layer}.decoder.${kind}`);
    this.selfFetches = names;
  }

  /** A new decode over the encoder output `hidden`. */
  start(hidden: Tensor): Seq2SeqRun {
    return new Seq2SeqRun(this, hidden);
  }

  private emptyCache(): Cache {
    const { layers, heads, headDim } = this.geometry;
    const cache: Record<string, Tensor> = {};
    for (let layer = 0; layer < layers; layer++)
      for (const part of PARTS)
        for (const kind of KINDS)
          cache[`past_key_values.${layer}.${part}.${kind}`] = f32(new Float32Array(0), [1, heads, 0, headDim]);
    return cache;
  }

  /** One decoder step; `cache` null on the first step. */
  async step(
    ids: readonly number[],
    hidden: Tensor,
    cache: Cache | null,
  ): Promise<{ logits: Float32Array; cache: Cache }> {
    const first = cache === null;
    const base = { input_ids: i64(ids, [1, ids.length]), encoder_hidden_states: hidden };
    let out: Record<string, Tensor>;
    // After the first step the cross-attention presents are not needed back (they would cross
    // the worker boundary every step for nothing).
    const fetches = first ? undefined : this.selfFetches;
    if (this.sessions.kind === "merged") {
      const feeds = { ...base, use_cache_branch: bool([!first], [1]), ...(cache ?? this.emptyCache()) };
      out = await this.sessions.merged.run(pick(feeds, this.sessions.inputs), fetches);
    } else if (first) {
      out = await this.sessions.first.run(pick(base, this.sessions.firstInputs));
    } else {
      out = await this.sessions.withPast.run(pick({ ...base, ...cache }, this.sessions.withPastInputs), fetches);
    }
    const logits = out.logits;
    const data = floatData(logits, "logits");
    const vocab = logits!.dims[2] ?? 0;
    if (vocab === 0) throw new Error("decoder returned empty logits");
    const next: Record<string, Tensor> = {};
    for (let layer = 0; layer < this.geometry.layers; layer++) {
      for (const part of PARTS) {
        for (const kind of KINDS) {
          const name = `${layer}.${part}.${kind}`;
          // Cross-attention caches are computed once, on the first step.
          const tensor = part === "encoder" && !first ? cache[`past_key_values.${name}`] : out[`present.${name}`];
          if (tensor === undefined) throw new Error(`decoder returned no present.${name}`);
          next[`past_key_values.${name}`] = tensor;
        }
      }
    }
    return { logits: data.subarray(data.length - vocab), cache: next };
  }

  /** Frees every decoder session. */
  async release(): Promise<void> {
    if (this.sessions.kind === "merged") await this.sessions.merged.release();
    else await Promise.all([this.sessions.first.release(), this.sessions.withPast.release()]);
  }
}
