/**
 * A constructed dialect-id pack (Sawt's contract: `model.onnx` + `labels.txt`; fbank features in,
 * one logit per label out) that decides by the dominant frequency band: label i wins when the
 * audio's loudest 80-bin fbank energy lies in `bands[i]`. Two input layouts of the contract are
 * offered: per-frame features [1, 80, T] (pooled inside the graph) or mean-pooled [1, 80].
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { GraphBuilder, tensor } from "../onnx/builder.ts";
import { peakMelBin } from "./ctc.ts";

/** Labels and the band of each. */
export interface DialectModelOptions {
  readonly labels: readonly string[];
  /** [lowHz, highHz) per label. */
  readonly bands: readonly (readonly [number, number])[];
  /** Feed mean-pooled features [1, 80] instead of frames. */
  readonly pooled?: boolean;
}

/** Builds the model as ONNX bytes. */
export function buildDialectModel(options: DialectModelOptions): Uint8Array {
  const labels = options.labels.length;
  const weights = new Float32Array(80 * labels);
  for (const [i, [low, high]] of options.bands.entries()) {
    // A label's bins: the peak bins of tones every 25 Hz across its band.
    const bins = new Set<number>();
    for (let f = low; f < high; f += 25) bins.add(peakMelBin(f));
    for (const m of bins) weights[m * labels + i] = 1;
  }
  const g = new GraphBuilder("dialect_id");
  const input = options.pooled ? g.input("features", "float32", [1, 80]) : g.input("features", "float32", [1, 80, "T"]);
  const pooled = options.pooled ? input : g.op("ReduceMean", [input], { axes: [2], keepdims: 0 });
  // The loudest bin of each band (0 elsewhere: weights mask, −∞-ish floor keeps other bins out).
  const expanded = g.op("Unsqueeze", [pooled, g.int64([2])]);
  const mask = g.constant(tensor(weights, [1, 80, labels]));
  const masked = g.op("Add", [
    g.op("Mul", [expanded, mask]),
    g.op("Mul", [g.op("Sub", [g.float(1), mask]), g.float(-1000)]),
  ]);
  g.output(g.op("ReduceMax", [masked], { axes: [1], keepdims: 0 }), "logits", "float32", [1, labels]);
  return g.toModel({ producerName: "sawt-test-dialect", metadata: { normalize_type: "", feat_dim: 80 } });
}

/** Writes `model.onnx` + `labels.txt` into `dir`. */
export async function writeDialectPack(dir: string, options: DialectModelOptions): Promise<void> {
  await mkdir(dir, { recursive: true });
  await Bun.write(join(dir, "model.onnx"), buildDialectModel(options));
  await Bun.write(join(dir, "labels.txt"), options.labels.map((label) => `${label}\n`).join(""));
}
