/**
 * Moonshine's two sessions and the merged decoder's cache protocol (onnx-community export): the
 * first step runs with empty (length 0) caches and `use_cache_branch = false`, and computes the
 * cross-attention keys/values from the encoder output; every later step feeds back all
 * `present.*.decoder.*` (self attention, one position longer each step) and the
 * `present.*.encoder.*` of the FIRST step (later steps return them unchanged or empty), with
 * `use_cache_branch = true`.
 */
import {
  bool,
  f32,
  floatData,
  i64,
  openSessions,
  packLabel,
  type Session,
  type Tensor,
} from "../../runtime/onnx-runner.ts";
import type { MoonshineConfig } from "./config.ts";

/** Key/value caches by input name (`past_key_values.<i>.<decoder|encoder>.<key|value>`). */
export type MoonshineCache = Readonly<Record<string, Tensor>>;

/** One decoder step's result. */
export interface MoonshineStep {
  /** Logits of the last position fed. */
  readonly logits: Float32Array;
  readonly cache: MoonshineCache;
}

const KINDS = ["key", "value"] as const;

function selfPresents(layers: number): string[] {
  const names = ["logits"];
  for (let layer = 0; layer < layers; layer++) for (const kind of KINDS) names.push(`present.${layer}.decoder.${kind}`);
  return names;
}

/** Owns a Moonshine pack's encoder and merged-decoder sessions. */
export class MoonshineModel {
  private readonly selfFetches: readonly string[];

  private constructor(
    readonly config: MoonshineConfig,
    private readonly encoder: Session,
    private readonly decoder: Session,
    readonly provider: "cpu" | "cuda",
  ) {
    this.selfFetches = selfPresents(config.layers);
  }

  /** Opens both sessions. */
  static async load(config: MoonshineConfig, pack: string, parallel = 1): Promise<MoonshineModel> {
    const { sessions, provider } = await openSessions([config.encoderPath, config.decoderPath], (path) => ({
      label: packLabel(pack, path),
      parallel,
    }));
    return new MoonshineModel(config, sessions[0]!, sessions[1]!, provider);
  }

  /** Runs the encoder on raw 16 kHz audio; the hidden states every decoder step attends to. */
  async encode(samples: Float32Array): Promise<Tensor> {
    const out = await this.encoder.run({ input_values: f32(samples, [1, samples.length]) });
    if (out.last_hidden_state === undefined) throw new Error("encoder returned no last_hidden_state");
    return out.last_hidden_state;
  }

  /** Empty (length 0) caches for the first step. */
  emptyCache(): MoonshineCache {
    const { layers, heads, headDim } = this.config;
    const cache: Record<string, Tensor> = {};
    for (let layer = 0; layer < layers; layer++) {
      for (const part of ["decoder", "encoder"]) {
        for (const kind of KINDS)
          cache[`past_key_values.${layer}.${part}.${kind}`] = f32(new Float32Array(0), [1, heads, 0, headDim]);
      }
    }
    return cache;
  }

  /**
   * Feeds `ids` after the positions in `cache`. `first` marks the step that has no cache yet
   * (use_cache_branch false); its encoder presents are kept for every later step.
   */
  async step(ids: readonly number[], hidden: Tensor, cache: MoonshineCache, first: boolean): Promise<MoonshineStep> {
    const feeds = {
      input_ids: i64(ids, [1, ids.length]),
      encoder_hidden_states: hidden,
      use_cache_branch: bool([!first], [1]),
      ...cache,
    };
    // After the first step the cross-attention presents are not needed back (they would cross
    // the worker boundary every step for nothing).
    const out = await this.decoder.run(feeds, first ? undefined : this.selfFetches);
    const logits = out.logits;
    const data = floatData(logits, "logits");
    const vocab = logits!.dims[2] ?? 0;
    if (vocab === 0) throw new Error("decoder returned empty logits");
    const next: Record<string, Tensor> = {};
    for (let layer = 0; layer < this.config.layers; layer++) {
      for (const part of ["decoder", "encoder"] as const) {
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

  async release(): Promise<void> {
    await Promise.all([this.encoder.release(), this.decoder.release()]);
  }
}
