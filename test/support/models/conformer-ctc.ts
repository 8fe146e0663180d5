/**
 * A constructed recogniser of realistic cost in NeMo's CTC export contract (issue #19): the shape
 * of NeMo's Conformer-CTC medium family with seeded random weights, so benchmarks can weigh
 * Sawt's serving layer against a model whose session time is what a real one costs. It recognises
 * nothing; its text is whatever random weights argmax to.
 *
 * Graph, after NeMo's ConformerEncoder + ConvASRDecoder (facts from NeMo's configs; no code):
 * - `audio_signal` float [N, 80, T], `length` int64 [N] → `logprobs` [N, T', 129], T' = ⌈T/4⌉.
 * - Subsampling ×4 ("striding"): Conv2d(1→256, 3×3, stride 2, pad 1), ReLU, Conv2d(256→256, same),
 *   ReLU, flatten channels × 20 mel rows, Linear(5120→256). Lengths follow NeMo's calc_length:
 *   ⌊(L − 1) / 2⌋ + 1 twice.
 * - x·√d_model, then 12 Conformer blocks at d_model 256: ½·FFN(256→1024→256, Swish) +
 *   relative-position multi-head self-attention (4 heads, pos_bias_u/v, NeMo's rel_shift) +
 *   convolution module (pointwise 256→512, GLU, depthwise kernel 31, batch norm, Swish,
 *   pointwise) + ½·FFN, each pre-layer-normed and residual, and a final layer norm per block.
 *   Padded frames (at or past the subsampled `length`) are masked out of attention and zeroed
 *   before the depthwise convolution, as NeMo does.
 * - Linear(256→129) and log_softmax: 128 word pieces and the blank last.
 *
 * About 20 M parameters (≈ 80 MB of float32), built in a few seconds.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { seededRandom } from "../../../src/asr/whisper/fallback.ts";
import { GraphBuilder, type TensorValue } from "../onnx/builder.ts";

/** The architecture's sizes; tests may shrink them, benchmarks use {@link CONFORMER_MEDIUM}. */
export interface ConformerShape {
  readonly layers: number;
  readonly dModel: number;
  readonly heads: number;
  readonly ffExpansion: number;
  readonly convKernel: number;
  /** Word pieces besides the blank. */
  readonly vocab: number;
  readonly featDim: number;
  readonly seed: number;
}

/** 12 blocks at 256 wide: the recogniser issue #19 measures with (≈ 80 MB). */
export const CONFORMER_MEDIUM: ConformerShape = Object.freeze({
  layers: 12,
  dModel: 256,
  heads: 4,
  ffExpansion: 4,
  convKernel: 31,
  vocab: 128,
  featDim: 80,
  seed: 19,
});

/** Input frames per output frame. */
export const CONFORMER_SUBSAMPLING = 4;

/** Output frames NeMo's striding subsampling gives for `frames` input frames (⌈frames / 4⌉ for frames ≥ 1). */
export function conformerFrames(frames: number): number {
  let length = frames;
  for (let i = 0; i < 2; i++) length = Math.floor((length - 1) / 2) + 1;
  return length;
}

/** Builds the recogniser as ONNX bytes. */
export function buildConformerCtc(shape: ConformerShape = CONFORMER_MEDIUM): Uint8Array {
  const { layers, dModel: d, heads, ffExpansion, convKernel, featDim } = shape;
  const dk = d / heads;
  const classes = shape.vocab + 1;
  const random = seededRandom(shape.seed);
  const g = new GraphBuilder("conformer_ctc");

  /** A float32 initializer whose values are uniform in ±`scale` (no copy of the data). */
  const weight = (dims: readonly number[], scale: number): string => {
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; i++) data[i] = (2 * random() - 1) * scale;
    const raw = new Uint8Array(data.buffer);
    return g.constant({ kind: "tensor", elemType: "float32", dims, raw } satisfies TensorValue);
  };
  // Variance 1/fan_in keeps activations of random layers in range.
  const glorot = (dims: readonly number[], fanIn: number) => weight(dims, Math.sqrt(3 / fanIn));
  const filled = (dims: readonly number[], value: number) =>
    g.float(
      Array.from({ length: dims.reduce((a, b) => a * b, 1) }, () => value),
      dims,
    );
  const linear = (x: string, from: number, to: number, bias = true): string => {
    const y = g.op("MatMul", [x, glorot([from, to], from)]);
    return bias ? g.op("Add", [y, weight([to], 0.02)]) : y;
  };
  const layerNorm = (x: string) =>
    g.op("LayerNormalization", [x, filled([d], 1), filled([d], 0)], { axis: -1, epsilon: 1e-5 });
  const swish = (x: string) => g.op("Mul", [x, g.op("Sigmoid", [x])]);
  const shapeOf = (x: string, axis: number) => g.op("Gather", [g.op("Shape", [x]), g.int64([axis])], { axis: 0 });

  const features = g.input("audio_signal", "float32", ["audio_signal_dynamic_axes_1", featDim, "T"]);
  const length = g.input("length", "int64", ["length_dynamic_axes_1"]);

  // Subsampling ×4: [N, 80, T] → [N, 1, T, 80] → two strided convolutions → [N, T', 256·20].
  let x = g.op("Unsqueeze", [g.op("Transpose", [features], { perm: [0, 2, 1] }), g.int64([1])]);
  let rows = featDim;
  for (const channelsIn of [1, d]) {
    const kernel = glorot([d, channelsIn, 3, 3], channelsIn * 9);
    x = g.op("Relu", [
      g.op("Conv", [x, kernel, weight([d], 0.02)], { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] }),
    ]);
    rows = Math.floor((rows - 1) / 2) + 1;
  }
  x = g.op("Reshape", [g.op("Transpose", [x], { perm: [0, 2, 1, 3] }), g.int64([0, 0, -1])]);
  x = g.op("Mul", [linear(x, d * rows, d), g.float(Math.sqrt(d))]);

  // Output length (NeMo's calc_length) and the mask of frames that carry audio.
  let outLength = length;
  for (let i = 0; i < 2; i++)
    outLength = g.op("Add", [g.op("Div", [g.op("Sub", [outLength, g.int64(1)]), g.int64(2)]), g.int64(1)]);
  const frames = shapeOf(x, 1);
  const frameCount = g.op("Squeeze", [frames, g.int64([0])]);
  const positions = g.op("Range", [g.int64(0), frameCount, g.int64(1)]);
  const valid = g.op("Less", [positions, g.op("Gather", [outLength, g.int64(0)], { axis: 0 })]);
  const keyMask = g.op("Unsqueeze", [valid, g.int64([0, 1, 2])]); // [1, 1, 1, T']
  const timeMask = g.op("Cast", [g.op("Unsqueeze", [valid, g.int64([0, 1])])], { to: 1 }); // [1, 1, T'] float

  // Relative positions T'−1 … −(T'−1), sinusoidal, sin and cos interleaved: [1, 2T'−1, d].
  const last = g.op("Sub", [frameCount, g.int64(1)]);
  const relative = g.op("Cast", [g.op("Range", [last, g.op("Neg", [frameCount]), g.int64(-1)])], { to: 1 });
  const inverse = g.float(Array.from({ length: d / 2 }, (_, i) => Math.exp((-2 * i * Math.log(10000)) / d)));
  const angles = g.op("Mul", [g.op("Unsqueeze", [relative, g.int64([1])]), inverse]);
  const column = (op: string) => g.op("Unsqueeze", [g.op(op, [angles]), g.int64([2])]);
  const interleaved = g.op("Concat", [column("Sin"), column("Cos")], { axis: 2 });
  const posEmb = g.op("Reshape", [interleaved, g.int64([1, -1, d])]);
  const framesDim = g.op("Reshape", [frameCount, g.int64([1])]);

  const feedForward = (input: string) =>
    g.op("Mul", [linear(swish(linear(layerNorm(input), d, d * ffExpansion)), d * ffExpansion, d), g.float(0.5)]);
  const splitHeads = (y: string, perm: readonly number[]) =>
    g.op("Transpose", [g.op("Reshape", [y, g.int64([0, 0, heads, dk])])], { perm });

  const attention = (input: string): string => {
    const y = layerNorm(input);
    const q = splitHeads(linear(y, d, d), [0, 2, 1, 3]); // [N, H, T, dk]
    const kT = splitHeads(linear(y, d, d), [0, 2, 3, 1]); // [N, H, dk, T]
    const v = splitHeads(linear(y, d, d), [0, 2, 1, 3]);
    const p = splitHeads(linear(posEmb, d, d, false), [0, 2, 3, 1]); // [1, H, dk, 2T−1]
    const contentScores = g.op("MatMul", [g.op("Add", [q, weight([1, heads, 1, dk], 0.02)]), kT]);
    const positionScores = g.op("MatMul", [g.op("Add", [q, weight([1, heads, 1, dk], 0.02)]), p]);
    // rel_shift: pad one column on the left, fold to [2T, T], drop the first row, unfold, keep T columns.
    const padded = g.op("Pad", [positionScores, g.int64([0, 0, 0, 1, 0, 0, 0, 0])]);
    const folded = g.op("Reshape", [padded, g.op("Concat", [g.int64([0, 0, -1]), framesDim], { axis: 0 })]);
    const dropped = g.op("Slice", [folded, g.int64([1]), g.int64([1 << 30]), g.int64([2])]);
    const unfoldShape = g.op("Concat", [g.int64([0, 0]), framesDim, g.int64([-1])], { axis: 0 });
    const unfolded = g.op("Reshape", [dropped, unfoldShape]);
    const shifted = g.op("Slice", [unfolded, g.int64([0]), framesDim, g.int64([3])]);
    const scores = g.op("Mul", [g.op("Add", [contentScores, shifted]), g.float(1 / Math.sqrt(dk))]);
    const weights = g.op("Softmax", [g.op("Where", [keyMask, scores, g.float(-10000)])], { axis: -1 });
    const context = g.op("Reshape", [
      g.op("Transpose", [g.op("MatMul", [weights, v])], { perm: [0, 2, 1, 3] }),
      g.int64([0, 0, d]),
    ]);
    return linear(context, d, d);
  };

  const convolution = (input: string): string => {
    const y = g.op("Transpose", [layerNorm(input)], { perm: [0, 2, 1] }); // [N, d, T]
    const pointwise = (z: string, to: number) =>
      g.op("Conv", [z, glorot([to, d, 1], d), weight([to], 0.02)], { kernel_shape: [1] });
    const [a, b] = g.opN("Split", [pointwise(y, 2 * d), g.int64([d, d])], 2, { axis: 1 });
    const gated = g.op("Mul", [g.op("Mul", [a!, g.op("Sigmoid", [b!])]), timeMask]);
    const depthwise = g.op("Conv", [gated, glorot([d, 1, convKernel], convKernel), weight([d], 0.02)], {
      kernel_shape: [convKernel],
      group: d,
      pads: [(convKernel - 1) / 2, (convKernel - 1) / 2],
    });
    // Inference batch norm: scale, bias, running mean, running variance.
    const stats = [filled([d], 1), weight([d], 0.02), weight([d], 0.1), filled([d], 1)];
    const normed = g.op("BatchNormalization", [depthwise, ...stats]);
    return g.op("Transpose", [pointwise(swish(normed), d)], { perm: [0, 2, 1] });
  };

  for (let layer = 0; layer < layers; layer++) {
    x = g.op("Add", [x, feedForward(x)]);
    x = g.op("Add", [x, attention(x)]);
    x = g.op("Add", [x, convolution(x)]);
    x = g.op("Add", [x, feedForward(x)]);
    x = layerNorm(x);
  }
  g.output(g.op("LogSoftmax", [linear(x, d, classes)], { axis: -1 }), "logprobs", "float32", [
    "logprobs_dynamic_axes_1",
    "logprobs_dynamic_axes_2",
    classes,
  ]);
  return g.toModel({
    producerName: "sawt-test-conformer-ctc",
    metadata: {
      vocab_size: shape.vocab,
      normalize_type: "per_feature",
      subsampling_factor: CONFORMER_SUBSAMPLING,
      model_type: "EncDecCTCModelBPE",
      version: "1",
      model_author: "sawt-test",
      comment: "constructed Conformer-CTC of realistic cost, random weights",
    },
  });
}

const LETTERS = "ابتثجحخدذرزسشصضطظعغفقكلمنهوي";

/** tokens.txt lines: `<unk>`, Arabic letters alone and word-initial, then two-letter pieces; blank last. */
export function conformerTokens(vocab = CONFORMER_MEDIUM.vocab): string[] {
  const pieces = ["<unk>"];
  for (const letter of LETTERS) pieces.push(letter, `▁${letter}`);
  for (let i = 0; pieces.length < vocab; i++) pieces.push(`${LETTERS[i % 28]}${LETTERS[(i * 7 + 3) % 28]}`);
  return [...pieces.slice(0, vocab), "<blk>"];
}

/** Writes the recogniser as a NeMo CTC pack (`model.onnx` + `tokens.txt`) into `dir`. */
export async function writeConformerCtcPack(
  dir: string,
  shape: ConformerShape = CONFORMER_MEDIUM,
): Promise<{ modelPath: string; tokensPath: string; bytes: number }> {
  await mkdir(dir, { recursive: true });
  const modelPath = join(dir, "model.onnx");
  const tokensPath = join(dir, "tokens.txt");
  const model = buildConformerCtc(shape);
  await Bun.write(modelPath, model);
  await Bun.write(
    tokensPath,
    conformerTokens(shape.vocab)
      .map((t, i) => `${t} ${i}\n`)
      .join(""),
  );
  return { modelPath, tokensPath, bytes: model.byteLength };
}
