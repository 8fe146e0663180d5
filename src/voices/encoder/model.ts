/**
 * Speaker-encoder pack (D17), in the layout of sherpa-onnx's speaker-embedding extractors:
 * `model.onnx` taking 80-dim log-mel features [1, T, 80] and giving an embedding [1, D]
 * (metadata `output_dim`, `sample_rate` 16000, optional `feature_normalize_type`). Features are
 * NeMo-style fbank, transposed to frames × mels. Embeddings are L2-normalised.
 */
import { nemoFbank } from "../../audio/features/fbank.ts";
import { f32, floatData, openSession, type Session } from "../../onnx/runner.ts";
import type { SpeakerEncoderConfig } from "./config.ts";

/** A loaded speaker encoder. */
export class SpeakerEncoder {
  private constructor(
    readonly config: SpeakerEncoderConfig,
    private readonly session: Session,
    /** Where its session runs (the install record reads it). */
    readonly provider: "cpu" | "cuda",
  ) {}

  /** Opens the pack's session. */
  static async load(config: SpeakerEncoderConfig): Promise<SpeakerEncoder> {
    const { session, provider } = await openSession(config.modelPath);
    return new SpeakerEncoder(config, session, provider);
  }

  /** Embedding of 16 kHz mono audio, L2-normalised. */
  async embed(samples: Float32Array): Promise<Float32Array> {
    const features = nemoFbank(samples, { nMels: this.config.featureDim, normalize: this.config.normalize });
    const frames = features.nFrames;
    const transposed = new Float32Array(frames * features.nMels);
    for (let m = 0; m < features.nMels; m++) {
      for (let t = 0; t < frames; t++) transposed[t * features.nMels + m] = features.data[m * frames + t]!;
    }
    const out = await this.session.run({
      [this.config.inputName]: f32(transposed, [1, frames, features.nMels]),
    });
    const raw = floatData(out[this.config.outputName], this.config.outputName);
    const embedding = new Float32Array(raw.subarray(0, this.config.embeddingDim));
    const norm = Math.hypot(...embedding) || 1;
    for (let i = 0; i < embedding.length; i++) embedding[i]! /= norm;
    return embedding;
  }

  /** Releases the session. */
  async close(): Promise<void> {
    await this.session.release();
  }

  /** The same as {@link close}: what the model registry's loaded models offer. */
  release(): Promise<void> {
    return this.close();
  }
}
