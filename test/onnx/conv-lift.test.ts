/**
 * The load-time lift of 1-D convolution chains to 2-D (src/onnx/conv-lift.ts): every rule of
 * the rewrite on a constructed graph at an old and a new opset, the Piper-medium-shaped voice,
 * and the real published models beside the checkout (Moonshine's convolution stem lifted, Silero
 * VAD left alone). "Same" means onnxruntime's outputs of the original and the lifted graph agree
 * within float rounding; the lifted graph is also checked for what it holds (2-D kernels), so a
 * rewrite that changed nothing could not pass.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { InferenceSession, Tensor } from "onnxruntime-node";
import { type LiftOptions, liftConv1d } from "../../src/onnx/conv-lift.ts";
import { concatBytes } from "../../src/audio/concat.ts";
import { readEditableModel, writeEditableModel } from "../../src/onnx/graph.ts";
import { loadOrt } from "../../src/onnx/ort.ts";
import { createSession } from "../../src/onnx/sessions.ts";
import { buildPiperMediumGraph } from "../support/models/piper-medium.ts";
import { GraphBuilder, tensor } from "../support/onnx/builder.ts";
import { MOONSHINE_TINY_EN, sileroVadFile } from "../support/fixtures/models.ts";
import { npmFile } from "../support/fixtures/cache.ts";
import { tempDir } from "../support/sawt.ts";

const ort = await loadOrt();

/** Deterministic values in [-1, 1) (a linear congruential sequence). */
function values(count: number, seed: number): Float32Array {
  const out = new Float32Array(count);
  let s = seed;
  for (let i = 0; i < count; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    out[i] = s / 1073741824 - 1;
  }
  return out;
}

/** One 1-thread session per model bytes, run on the same feeds; returns every output by name. */
async function run(bytes: Uint8Array, feeds: Record<string, Tensor>): Promise<InferenceSession.OnnxValueMapType> {
  const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, graphOptimizationLevel: "all" });
  try {
    return await session.run(feeds);
  } finally {
    await session.release();
  }
}

function largestDifference(a: InferenceSession.OnnxValueMapType, b: InferenceSession.OnnxValueMapType): number {
  expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
  let worst = 0;
  for (const [name, t] of Object.entries(a)) {
    const u = b[name] as Tensor;
    expect(u.dims).toEqual((t as Tensor).dims);
    const x = (t as Tensor).data as Float32Array;
    const y = u.data as Float32Array;
    for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(x[i]! - y[i]!));
  }
  return worst;
}

/** The spatial rank of every Conv and ConvTranspose in `bytes`, read from its `pads` (two per axis). */
function spatialRanks(bytes: Uint8Array): number[] {
  return readEditableModel(bytes)
    .nodes.filter((n) => n.opType === "Conv" || n.opType === "ConvTranspose")
    .map((n) => (n.attributes.find((a) => a.name === "pads")?.ints.length ?? 0) / 2);
}

/**
 * A chain of four convolutions through every kind of op the lift moves: activations, a mask and
 * a per-channel bias from outside the chain (ranks 3 and 2), a scalar, Split and a gate, a dilated
 * convolution, BatchNormalization, Concat with a tensor from outside, Gather and Slice on the
 * channel axis, a strided ConvTranspose and a grouped convolution, a time-axis Slice; a lifted
 * tensor leaves the chain through a Transpose and two graph outputs.
 */
function everyRule(opset: number): Uint8Array {
  const g = new GraphBuilder("every_rule");
  const x = g.input("x", "float32", [1, 8, "T"]);
  const mask = g.input("mask", "float32", [1, 1, "T"]);
  let seed = 1;
  const weight = (dims: number[]) =>
    g.constant(
      tensor(
        values(
          dims.reduce((a, b) => a * b),
          seed++,
        ),
        dims,
      ),
    );
  const c1 = g.op("Conv", [x, weight([16, 8, 3]), weight([16])], { kernel_shape: [3], pads: [1, 1] });
  const masked = g.op("Mul", [g.op("LeakyRelu", [c1], { alpha: 0.1 }), mask]);
  const biased = g.op("Mul", [g.op("Add", [masked, weight([16, 1])]), g.float(0.5)]);
  const [a, b] =
    opset >= 13
      ? g.opN("Split", [biased, g.int64([8, 8])], 2, { axis: 1 })
      : g.opN("Split", [biased], 2, { axis: 1, split: [8, 8] });
  const gated = g.op("Mul", [g.op("Tanh", [a!]), g.op("Sigmoid", [b!])]);
  const c2 = g.op("Conv", [gated, weight([8, 8, 5])], { dilations: [2], pads: [4, 4] });
  const norm = g.op("BatchNormalization", [c2, weight([8]), weight([8]), weight([8]), g.float(Array(8).fill(2))]);
  const joined = g.op("Concat", [norm, x], { axis: -2 });
  const picked = g.op("Gather", [joined, g.int64([15, 3, 9, 0, 1, 2, 4, 5, 6, 7, 8, 10, 11, 12])], { axis: 1 });
  const sliced = g.op("Slice", [picked, g.int64([0]), g.int64([12]), g.int64([1])]);
  const up = g.op("ConvTranspose", [sliced, weight([12, 6, 4]), weight([6])], {
    strides: [2],
    pads: [1, 1],
    output_padding: [1],
  });
  const grouped = g.op("Conv", [up, weight([6, 3, 3])], { group: 2, pads: [2, 0], strides: [1] });
  const trimmed = g.op("Slice", [g.op("Tanh", [grouped]), g.int64([1]), g.int64([-1]), g.int64([-1])]);
  g.output(trimmed, "audio");
  g.output(g.op("Transpose", [c2], { perm: [0, 2, 1] }), "frames");
  g.output(norm, "norm");
  return g.toModel({ opset });
}

/** The lifted model as one buffer, with what was lifted; fails the test when nothing was. */
function lift(model: Uint8Array, options?: LiftOptions): { bytes: Uint8Array; convolutions: number } {
  const result = liftConv1d(model, options);
  if (result.pieces === undefined) throw new Error(result.reason);
  return { bytes: concatBytes(result.pieces), convolutions: result.convolutions };
}

const feeds = (t: number) => ({
  x: new ort.Tensor("float32", values(8 * t, 99), [1, 8, t]),
  mask: new ort.Tensor(
    "float32",
    Float32Array.from({ length: t }, (_, i) => (i < t - 3 ? 1 : 0)),
    [1, 1, t],
  ),
});

describe("liftConv1d", () => {
  for (const opset of [11, 17]) {
    test(`does give the original outputs when every rule applies (opset ${opset})`, async () => {
      const original = everyRule(opset);
      const lifted = lift(original);
      expect(lifted.convolutions).toBe(4);
      expect(spatialRanks(original)).toEqual([1, 1, 1, 1]);
      expect(spatialRanks(lifted.bytes)).toEqual([2, 2, 2, 2]);
      for (const t of [1, 7, 40]) {
        const before = await run(original, feeds(t));
        expect(largestDifference(before, await run(lifted.bytes, feeds(t)))).toBeLessThan(1e-5);
      }
    });
  }

  test("does leave a chain of fewer than three convolutions alone", () => {
    const g = new GraphBuilder("short");
    const x = g.input("x", "float32", [1, 4, "T"]);
    const w = g.constant(tensor(values(48, 3), [4, 4, 3]));
    const y = g.op("Conv", [g.op("Relu", [g.op("Conv", [x, w], { pads: [1, 1] })]), w], { pads: [1, 1] });
    g.output(y, "y");
    const model = g.toModel();
    const anyChain = { upsamplingOnly: false };
    expect(liftConv1d(model, anyChain)).toEqual({ reason: "no chain of 3 or more 1-D convolutions" });
    expect(liftConv1d(model, { ...anyChain, minChain: 2 }).pieces).toBeDefined();
    expect(liftConv1d(model, { minChain: 2 })).toEqual({ reason: "no upsampling chain of 2 or more 1-D convolutions" });
  });

  test("does write an untouched graph back byte for byte", () => {
    const model = everyRule(17);
    expect(Buffer.from(writeEditableModel(readEditableModel(model))).equals(Buffer.from(model))).toBe(true);
  });

  test("does refuse a malformed file with an error, not a wrong graph", () => {
    const model = everyRule(17);
    expect(() => liftConv1d(model.subarray(0, model.length - 7))).toThrow(/runs past the end|truncated/);
  });

  test("does lift the Piper-medium-shaped voice's decoder (and its flow when asked) to the same audio", async () => {
    const model = buildPiperMediumGraph().graph.toModel();
    const decoder = lift(model);
    // 1 + 3 × (1 + 3 × 2) + 1 convolutions in the decoder; of the 76 in all, the encoder's kernel-3
    // pairs (between Transposes), its projection and the flow's stay 1-D.
    expect(decoder.convolutions).toBe(23);
    expect(spatialRanks(decoder.bytes).filter((r) => r === 1)).toHaveLength(76 - 23);
    // The flow too: 4 couplings × (1 + 2 × 4 + 1).
    const all = lift(model, { upsamplingOnly: false });
    expect(all.convolutions).toBe(23 + 40);
    const ids = Array.from({ length: 24 }, (_, i) => ((i * 7) % 120) + 1);
    const voiceFeeds = {
      input: new ort.Tensor("int64", BigInt64Array.from(ids, BigInt), [1, ids.length]),
      input_lengths: new ort.Tensor("int64", BigInt64Array.of(BigInt(ids.length)), [1]),
      scales: new ort.Tensor("float32", Float32Array.of(0, 1, 0.8), [3]), // no noise: deterministic
    };
    const before = await run(model, voiceFeeds);
    expect(largestDifference(before, await run(decoder.bytes, voiceFeeds))).toBeLessThan(1e-5);
    expect(largestDifference(before, await run(all.bytes, voiceFeeds))).toBeLessThan(1e-5);
  });

  test("does lift the real Moonshine encoder's convolution stem to the same encoding", async () => {
    const model = readFileSync(npmFile(MOONSHINE_TINY_EN["encoder_model.onnx"]!));
    // Its stem is conv1 → tanh → group norm → conv2 → gelu → conv3 → gelu: chains of one and two.
    expect(liftConv1d(model).pieces).toBeUndefined();
    const lifted = lift(model, { minChain: 1, upsamplingOnly: false });
    expect(lifted.convolutions).toBe(3);
    const input = {
      input_values: new ort.Tensor(
        "float32",
        values(16000, 5).map((v) => v * 0.1),
        [1, 16000],
      ),
    };
    const before = await run(model, input);
    expect(largestDifference(before, await run(lifted.bytes, input))).toBeLessThan(1e-4);
  });

  test("does leave the real Silero VAD alone: its graph has subgraphs", () => {
    const model = readFileSync(sileroVadFile());
    expect(liftConv1d(model, { minChain: 1, upsamplingOnly: false })).toEqual({ reason: "node If has a subgraph" });
  });

  test("does run a lifted one-thread session from createSession on a model file, with the original outputs", async () => {
    const dir = tempDir("sawt-conv-lift-");
    const original = join(dir.path, "model.onnx");
    writeFileSync(original, everyRule(17));
    const leftovers = () => readdirSync(tmpdir()).filter((f) => f.startsWith("sawt-lift-")).length;
    const before = leftovers();
    const plain = await createSession(original, { intraOpThreads: 1 });
    const lifted = await createSession(original, { intraOpThreads: 1, liftConv1d: true });
    expect(leftovers()).toBe(before); // the lifted file is gone once the session holds the graph
    try {
      expect(lifted.session.liftedConvolutions).toBe(4);
      expect(plain.session.liftedConvolutions).toBe(0);
      const a = await plain.session.run(feeds(9));
      expect(largestDifference(a, await lifted.session.run(feeds(9)))).toBeLessThan(1e-5);
    } finally {
      await Promise.all([plain.session.release(), lifted.session.release()]);
      dir.remove();
    }
  });
});
