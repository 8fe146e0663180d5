/**
 * The speaker-encoder pack contract (D17), in the layout of sherpa-onnx's speaker-embedding
 * extractors: `speaker-encoder/model.onnx` taking 80-dim log-mel features [1, T, 80] and giving
 * an embedding [1, D] (metadata `output_dim`, `sample_rate` 16000, optional
 * `feature_normalize_type`), checked from the model header without a session.
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ENCODER_MODEL_MISSING } from "../../core/voices.ts";
import { PackError } from "../../models/errors.ts";
import { MetadataReader } from "../../models/header.ts";
import { packFiles, type PackFiles } from "../../models/pack.ts";

/** Where the speaker-encoder pack lives under the models dir. */
export const SPEAKER_ENCODER_DIR = "speaker-encoder";

const MODEL = "model.onnx";

/** Validated facts about a speaker-encoder pack. */
export interface SpeakerEncoderConfig {
  readonly modelPath: string;
  readonly inputName: string;
  readonly outputName: string;
  readonly featureDim: number;
  readonly embeddingDim: number;
  readonly normalize: "per_feature" | "none";
}

/** Validates a speaker-encoder folder; throws {@link PackError} naming what is wrong. */
export function configureSpeakerEncoder(pack: PackFiles): SpeakerEncoderConfig {
  if (!pack.has(MODEL)) throw new PackError(ENCODER_MODEL_MISSING);
  const info = pack.header(MODEL);
  const input = info.inputs[0];
  const output = info.outputs[0];
  if (!input || !output) throw new PackError("speaker-encoder: model has no input or output");
  if (input.dims?.length !== 3) throw new PackError(`speaker-encoder: input ${input.name} must be [1, T, feat_dim]`);
  const meta = new MetadataReader(info.metadata, "speaker-encoder:");
  const featureDim = meta.intOr("feat_dim", typeof input.dims[2] === "number" ? input.dims[2] : 80);
  const embeddingDim = meta.intOr("output_dim", typeof output.dims?.[1] === "number" ? output.dims[1] : Number.NaN);
  const rate = meta.intOr("sample_rate", SPEECH_SAMPLE_RATE);
  if (meta.problems.length > 0) throw new PackError(meta.problems.join("; "));
  if (featureDim <= 0) throw new PackError(`speaker-encoder: feat_dim ${featureDim} must be positive`);
  if (!Number.isInteger(embeddingDim) || embeddingDim <= 0)
    throw new PackError("speaker-encoder: output_dim metadata or a fixed output dimension is required");
  if (rate !== SPEECH_SAMPLE_RATE)
    throw new PackError(`speaker-encoder: sample_rate ${rate} unsupported (${SPEECH_SAMPLE_RATE} only)`);
  const normalize = info.metadata.feature_normalize_type === "none" ? "none" : "per_feature";
  return Object.freeze({
    modelPath: pack.path(MODEL),
    inputName: input.name,
    outputName: output.name,
    featureDim,
    embeddingDim,
    normalize,
  });
}

/** The pack under `modelsDir`, or undefined when it has no model; throws {@link PackError}. */
export function readSpeakerEncoderConfig(modelsDir: string): SpeakerEncoderConfig | undefined {
  const dir = join(modelsDir, SPEAKER_ENCODER_DIR);
  if (!existsSync(join(dir, MODEL))) return undefined;
  return configureSpeakerEncoder(packFiles(SPEAKER_ENCODER_DIR, dir, readdirSync(dir)));
}
