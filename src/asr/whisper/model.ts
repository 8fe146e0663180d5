/**
 * The Whisper encoder/decoder sessions. The decoder is the sherpa-onnx export with explicit
 * key/value caches: self caches [n_text_layer, 1, n_text_ctx, n_text_state] go in and come back
 * updated at positions [offset, offset + n); `offset` (int64 [1]) is the position of the first
 * token fed. Cross-attention keys/values come from the encoder once per window.
 *
 * A window is decoded on a decoder session held for it ({@link WhisperDecode}): the cross-attention
 * tensors go to its worker once and the self caches are fed back there, never crossing threads
 * again (issue 38). {@link WhisperModel.step} is the same step without a hold.
 */
import {
  f32,
  floatData,
  type HeldSession,
  i64,
  openSessions,
  packLabel,
  type Session,
  type Tensor,
} from "../../onnx/runner.ts";
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
      // Each member holds the weights: lanes only while requests overlap (src/onnx sessions.ts).
      lanesOnDemand: true,
      // A decode's working memory (attention maps, a quantised output projection) goes back once idle.
      shrinkWorkingMemory: true,
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

  /** A decode of one window over its cross-attention tensors (which it takes over); release it when done. */
  startDecoding(cross: CrossAttention): WhisperDecode {
    return new WhisperDecode(this, this.decoder, cross);
  }

  async release(): Promise<void> {
    await Promise.all([this.encoder.release(), this.decoder.release()]);
  }
}

/** The self caches each step's outputs become, kept in the decoder's worker. */
const KEEP_CACHES = {
  out_n_layer_self_k_cache: "in_n_layer_self_k_cache",
  out_n_layer_self_v_cache: "in_n_layer_self_v_cache",
} as const;

/**
 * One window decoded on a held decoder session: {@link feed} tokens in order, {@link restart}
 * from position 0 for another attempt over the same window, {@link release} when done.
 */
export class WhisperDecode {
  private held: HeldSession | undefined;
  private crossSent = false;
  private offset = 0;

  constructor(
    private readonly model: WhisperModel,
    private readonly decoder: Session,
    private readonly cross: CrossAttention,
  ) {}

  /** Feeds `tokens` after those fed since the (re)start; the last position's logits. */
  async feed(tokens: readonly number[]): Promise<Float32Array> {
    this.held ??= await this.decoder.hold();
    const feeds: Record<string, Tensor> = {
      tokens: i64(tokens, [1, tokens.length]),
      offset: i64([this.offset], [1]),
    };
    const transfer: string[] = [];
    if (this.offset === 0) {
      const empty = this.model.emptyCache();
      Object.assign(feeds, { in_n_layer_self_k_cache: empty.k, in_n_layer_self_v_cache: empty.v });
      transfer.push("in_n_layer_self_k_cache", "in_n_layer_self_v_cache");
    }
    if (!this.crossSent) {
      // Kept by the worker for every restart: this thread never reads them again.
      Object.assign(feeds, { n_layer_cross_k: this.cross.k, n_layer_cross_v: this.cross.v });
      transfer.push("n_layer_cross_k", "n_layer_cross_v");
      this.crossSent = true;
    }
    const out = await this.held.run({ feeds, fetch: ["logits"], keep: KEEP_CACHES, transfer });
    this.offset += tokens.length;
    const data = floatData(out.logits, "logits");
    const vocab = out.logits!.dims[2] ?? 0;
    if (vocab === 0) throw new Error("decoder returned empty logits");
    return data.subarray(data.length - vocab);
  }

  /** The next feed starts the window again from empty caches. */
  restart(): void {
    this.offset = 0;
  }

  /** Frees the held decoder session and the tensors its worker keeps (once). */
  release(): void {
    this.held?.release();
    this.held = undefined;
  }
}
