/**
 * A constructed speaker-encoder pack in sherpa-onnx's speaker-embedding layout: input `x`
 * [1, T, 80] log-mel frames → `embedding` [1, 4]. The embedding is the mean energy of four bands of
 * mel bins (0–19, 20–39, 40–59, 60–79), so voices (tones) in different bands embed differently and a
 * test can predict which component dominates.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Attr, GraphBuilder, tensor } from "../onnx/builder.ts";
import { writeModel } from "../onnx/builder.ts";

/** Embedding size of the constructed encoder. */
export const SPEAKER_EMBEDDING_DIM = 4;

/** Builds the encoder model bytes. */
export function buildSpeakerEncoder(): Uint8Array {
  const bands = new Float32Array(80 * SPEAKER_EMBEDDING_DIM);
  // Log-mel values are negative for quiet bins; shifting by +20 keeps band sums positive.
  for (let bin = 0; bin < 80; bin++) bands[bin * SPEAKER_EMBEDDING_DIM + Math.floor(bin / 20)] = 1 / 20;
  const g = new GraphBuilder("speaker_encoder");
  const x = g.input("x", "float32", [1, "T", 80]);
  const mean = g.op("ReduceMean", [x], { axes: Attr.ints([1]), keepdims: 0 });
  const shifted = g.op("Add", [mean, g.float([20])]);
  const embedding = g.op("MatMul", [shifted, g.initializer("bands", tensor(bands, [80, SPEAKER_EMBEDDING_DIM]))]);
  g.output(embedding, "embedding", "float32", [1, SPEAKER_EMBEDDING_DIM]);
  return g.toModel({
    producerName: "sawt-test-speaker-encoder",
    metadata: {
      framework: "constructed",
      sample_rate: "16000",
      output_dim: String(SPEAKER_EMBEDDING_DIM),
      feature_normalize_type: "none",
    },
  });
}

/** Writes the pack as `<modelsDir>/speaker-encoder/model.onnx`. */
export async function writeSpeakerEncoderPack(modelsDir: string): Promise<string> {
  const dir = join(modelsDir, "speaker-encoder");
  mkdirSync(dir, { recursive: true });
  return await writeModel(join(dir, "model.onnx"), buildSpeakerEncoder());
}
