/**
 * Speaker-encoder pack (D17), in the layout of sherpa-onnx's speaker-embedding extractors:
 * `model.onnx` taking 80-dim log-mel features [1, T, 80] and giving an embedding [1, D]
 * (metadata `output_dim`, `sample_rate` 16000, optional `feature_normalize_type`). Features are
 * NeMo-style fbank, transposed to frames × mels. Embeddings are L2-normalised.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { nemoFbank } from "../asr/features/fbank.ts";
import { readOnnxModelInfoFile } from "../runtime/onnx-metadata.ts";
import { loadOrt } from "../runtime/ort.ts";
import { createSession, type Session } from "../runtime/sessions.ts";

/** Where the speaker-encoder pack lives under the models dir. */
export const SPEAKER_ENCODER_DIR = "speaker-encoder";

/** Validated facts about a speaker-encoder pack. */
export interface SpeakerEncoderConfig {
  readonly modelPath: string;
  readonly inputName: string;
  readonly outputName: string;
  readonly featureDim: number;
  readonly embeddingDim: number;
  readonly normalize: "per_feature" | "none";
}

/** Reads and checks a speaker-encoder pack; throws an Error naming what is wrong. */
export function readSpeakerEncoderConfig(modelsDir: string): SpeakerEncoderConfig | undefined {
  const modelPath = join(modelsDir, SPEAKER_ENCODER_DIR, "model.onnx");
  if (!existsSync(modelPath)) return undefined;
  const info = readOnnxModelInfoFile(modelPath);
  const input = info.inputs[0];
  const output = info.outputs[0];
  if (!input || !output) throw new Error("speaker-encoder: model has no input or output");
  if (input.dims?.length !== 3) throw new Error(`speaker-encoder: input ${input.name} must be [1, T, feat_dim]`);
  const featureDim = Number(info.metadata.feat_dim ?? (typeof input.dims[2] === "number" ? input.dims[2] : 80));
  const embeddingDim = Number(info.metadata.output_dim ?? (typeof output.dims?.[1] === "number" ? output.dims[1] : NaN));
  if (!Number.isInteger(embeddingDim) || embeddingDim <= 0) throw new Error("speaker-encoder: output_dim metadata or a fixed output dimension is required");
  const rate = Number(info.metadata.sample_rate ?? 16000);
  if (rate !== 16000) throw new Error(`speaker-encoder: sample_rate ${rate} unsupported (16000 only)`);
  const normalize = info.metadata.feature_normalize_type === "none" ? "none" : "per_feature";
  return Object.freeze({ modelPath, inputName: input.name, outputName: output.name, featureDim, embeddingDim, normalize });
}

/** A loaded speaker encoder. */
export class SpeakerEncoder {
  private constructor(
    readonly config: SpeakerEncoderConfig,
    private readonly session: Session,
  ) {}

  /** Opens the pack's session. */
  static async load(config: SpeakerEncoderConfig): Promise<SpeakerEncoder> {
    const { session } = await createSession(config.modelPath);
    return new SpeakerEncoder(config, session);
  }

  /** Embedding of 16 kHz mono audio, L2-normalised. */
  async embed(samples: Float32Array): Promise<Float32Array> {
    const ort = await loadOrt();
    const features = nemoFbank(samples, { nMels: this.config.featureDim, normalize: this.config.normalize });
    const frames = features.nFrames;
    const transposed = new Float32Array(frames * features.nMels);
    for (let m = 0; m < features.nMels; m++) {
      for (let t = 0; t < frames; t++) transposed[t * features.nMels + m] = features.data[m * frames + t]!;
    }
    const out = await this.session.run({ [this.config.inputName]: new ort.Tensor("float32", transposed, [1, frames, features.nMels]) });
    const raw = out[this.config.outputName]!.data as Float32Array;
    const embedding = new Float32Array(raw.subarray(0, this.config.embeddingDim));
    const norm = Math.hypot(...embedding) || 1;
    for (let i = 0; i < embedding.length; i++) embedding[i]! /= norm;
    return embedding;
  }

  /** Releases the session. */
  async close(): Promise<void> {
    await this.session.release();
  }
}
