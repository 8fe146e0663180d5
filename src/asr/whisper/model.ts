/**
 * The Whisper encoder/decoder sessions. The decoder is the sherpa-onnx export with explicit
 * key/value caches: self caches [n_text_layer, 1, n_text_ctx, n_text_state] go in and come back
 * updated at positions [offset, offset + n); `offset` (int64 [1]) is the position of the first
 * token fed. Cross-attention keys/values come from the encoder once per window.
 */
import { f32, floatData, i64, openSessions, packLabel, type Session, type Tensor } from "../../onnx/runner.ts";
import type { WhisperConfig } from "./config.ts";

/** Encoder output, fed unchanged to every decoder step of the window. */
export interface CrossAttention {
  readonly k: Tensor;
  readonly v: Tensor;
}

/** Decoder self-attention caches. */
export interface SelfCache {
  readonly k: Tensor;
  readonly v: Tensor;
}

/** One decoder step's result. */
export interface DecoderStep {
  /** Logits of the last position fed. */
  readonly logits: Float32Array;
  readonly cache: SelfCache;
}

/** Owns a Whisper pack's two sessions. */
export class WhisperModel {
  private constructor(
    readonly config: WhisperConfig,
    private readonly encoder: Session,
    private readonly decoder: Session,
    readonly provider: "cpu" | "cuda",
  ) {}

  /** Opens both sessions. */
  static async load(config: WhisperConfig, pack?: string, parallel = 1): Promise<WhisperModel> {
    const { sessions, provider } = await openSessions([config.encoderPath, config.decoderPath], (path) => ({
      label: packLabel(pack, path),
      parallel,
    }));
    return new WhisperModel(config, sessions[0]!, sessions[1]!, provider);
  }

  /** Runs the encoder on log-mel features `[n_mels, frames]`. */
  async encode(mel: Float32Array, frames: number): Promise<CrossAttention> {
    const out = await this.encoder.run({ mel: f32(mel, [1, this.config.meta.nMels, frames]) });
    if (out.n_layer_cross_k === undefined || out.n_layer_cross_v === undefined)
      throw new Error("encoder returned no cross-attention caches");
    return { k: out.n_layer_cross_k, v: out.n_layer_cross_v };
  }

  /** Zeroed self caches for a new window. */
  emptyCache(): SelfCache {
    const { nTextLayer, nTextCtx, nTextState } = this.config.meta;
    const dims = [nTextLayer, 1, nTextCtx, nTextState];
    const size = nTextLayer * nTextCtx * nTextState;
    return { k: f32(new Float32Array(size), dims), v: f32(new Float32Array(size), dims) };
  }

  /** Feeds `tokens` at positions starting at `offset`; returns the last position's logits and the updated caches. */
  async step(tokens: readonly number[], cache: SelfCache, cross: CrossAttention, offset: number): Promise<DecoderStep> {
    const out = await this.decoder.run({
      tokens: i64(tokens, [1, tokens.length]),
      in_n_layer_self_k_cache: cache.k,
      in_n_layer_self_v_cache: cache.v,
      n_layer_cross_k: cross.k,
      n_layer_cross_v: cross.v,
      offset: i64([offset], [1]),
    });
    const logits = out.logits;
    const data = floatData(logits, "logits");
    const vocab = logits!.dims[2] ?? 0;
    const k = out.out_n_layer_self_k_cache;
    const v = out.out_n_layer_self_v_cache;
    if (k === undefined || v === undefined || vocab === 0)
      throw new Error("decoder returned no caches or empty logits");
    return { logits: data.subarray(data.length - vocab), cache: { k, v } };
  }

  async release(): Promise<void> {
    await Promise.all([this.encoder.release(), this.decoder.release()]);
  }
}
