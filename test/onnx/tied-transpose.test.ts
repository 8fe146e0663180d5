/**
 * The tied-weight rewrite (src/onnx/tied-transpose.ts): a weight read both as written and
 * transposed is stored once, transposed, and the graph computes the same values; on the real
 * Moonshine decoder (whose `If` branches each transposed the tied embedding) both branches give the
 * original logits bit for bit, and a session of it holds less memory.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { InferenceSession, Tensor } from "onnxruntime-node";
import { concatBytes } from "../../src/audio/concat.ts";
import { loadOrt } from "../../src/onnx/ort.ts";
import { createSession } from "../../src/onnx/sessions.ts";
import { transposeMatrix } from "../../src/onnx/nested-graph.ts";
import { shareTransposedWeights } from "../../src/onnx/tied-transpose.ts";
import { MOONSHINE_TINY_EN } from "../support/fixtures/models.ts";
import { npmFile } from "../support/fixtures/cache.ts";
import { GraphBuilder, tensor } from "../support/onnx/builder.ts";
import { tempDir } from "../support/sawt.ts";

let ort: Awaited<ReturnType<typeof loadOrt>>;
beforeAll(async () => {
  ort = await loadOrt();
});

/** A tied embedding in the main graph: ids → Gather(W) → + x → MatMul(·, Transpose(W)) → logits. */
function tiedModel(): Uint8Array {
  const g = new GraphBuilder("tied");
  const ids = g.input("ids", "int64", [1, "T"]);
  const x = g.input("x", "float32", [1, "T", 3]);
  const w = g.initializer(
    "W",
    tensor(
      Float32Array.from({ length: 15 }, (_, i) => ((i * 7) % 11) - 5),
      [5, 3],
    ),
  );
  const embedded = g.op("Add", [g.op("Gather", [w, ids]), x]);
  g.output(g.op("MatMul", [embedded, g.op("Transpose", [w])]), "logits");
  return g.toModel();
}

async function run(model: Uint8Array, feeds: InferenceSession.FeedsType): Promise<Record<string, Tensor>> {
  const session = await ort.InferenceSession.create(model, { graphOptimizationLevel: "all" });
  try {
    return (await session.run(feeds)) as Record<string, Tensor>;
  } finally {
    await session.release();
  }
}

const rewritten = (model: Uint8Array) => {
  const result = shareTransposedWeights(model);
  if (result.pieces === undefined) throw new Error(result.reason);
  return { bytes: concatBytes(result.pieces), weights: result.weights };
};

describe("tied-weight rewrite", () => {
  test("does transpose a matrix of any element size", () => {
    const bytes = Uint8Array.of(1, 2, 3, 4, 5, 6); // [[1,2,3],[4,5,6]]
    expect([...transposeMatrix(bytes, 2, 3, 1)]).toEqual([1, 4, 2, 5, 3, 6]);
    expect([...transposeMatrix(bytes, 3, 1, 2)]).toEqual([1, 2, 3, 4, 5, 6]);
    expect([...transposeMatrix(Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8), 2, 2, 2)]).toEqual([1, 2, 5, 6, 3, 4, 7, 8]);
  });

  test("does store a weight read as written and transposed once, with the same outputs", async () => {
    const model = tiedModel();
    const { bytes, weights } = rewritten(model);
    expect(weights).toEqual(["W"]);
    const feeds = {
      ids: new ort.Tensor("int64", BigInt64Array.of(4n, 0n, 2n), [1, 3]),
      x: new ort.Tensor(
        "float32",
        Float32Array.from({ length: 9 }, (_, i) => i / 4),
        [1, 3, 3],
      ),
    };
    const before = await run(model, feeds);
    const after = await run(bytes, feeds);
    expect(after.logits!.dims).toEqual(before.logits!.dims);
    expect([...(after.logits!.data as Float32Array)]).toEqual([...(before.logits!.data as Float32Array)]);
  });

  test("does leave a weight alone when something else reads it", () => {
    const g = new GraphBuilder("other");
    const x = g.input("x", "float32", [3, 5]);
    const w = g.initializer("W", tensor(new Float32Array(15), [5, 3]));
    g.output(g.op("Add", [g.op("MatMul", [x, w]), g.op("Transpose", [g.op("Relu", [w])])]), "y");
    expect(shareTransposedWeights(g.toModel())).toEqual({ reason: "no weight is read both as written and transposed" });
  });

  test("does give the real Moonshine decoder's logits bit for bit in both branches, from one copy of its embedding", async () => {
    const model = new Uint8Array(readFileSync(npmFile(MOONSHINE_TINY_EN["decoder_model_merged.onnx"]!)));
    const { bytes, weights } = rewritten(model);
    expect(weights).toEqual(["model.decoder.embed_tokens.weight_merged_0_quantized"]);
    // The encoder has no tied weight: it is left alone.
    const encoder = new Uint8Array(readFileSync(npmFile(MOONSHINE_TINY_EN["encoder_model.onnx"]!)));
    expect(shareTransposedWeights(encoder).pieces).toBeUndefined();
    const layers = 6;
    const heads = 8;
    const headDim = 36;
    const frames = 20;
    const hidden = new ort.Tensor(
      "float32",
      Float32Array.from({ length: frames * 288 }, (_, i) => Math.sin(i / 7) * 0.5),
      [1, frames, 288],
    );
    const cache = (past: number, encoderFrames: number, fill: number) => {
      const feeds: Record<string, Tensor> = {};
      for (let l = 0; l < layers; l++)
        for (const [part, length] of [
          ["decoder", past],
          ["encoder", encoderFrames],
        ] as const)
          for (const kind of ["key", "value"])
            feeds[`past_key_values.${l}.${part}.${kind}`] = new ort.Tensor(
              "float32",
              Float32Array.from({ length: heads * length * headDim }, (_, i) => Math.cos(i * fill) * 0.3),
              [1, heads, length, headDim],
            );
      return feeds;
    };
    const step = (ids: bigint[], cached: boolean) => ({
      input_ids: new ort.Tensor("int64", BigInt64Array.from(ids), [1, ids.length]),
      encoder_hidden_states: hidden,
      use_cache_branch: new ort.Tensor("bool", Uint8Array.of(cached ? 1 : 0), [1]),
      ...(cached ? cache(3, frames, 0.01) : cache(0, 0, 0)),
    });
    for (const feeds of [step([1n, 503n], false), step([1207n], true)]) {
      const before = await run(model, feeds);
      const after = await run(bytes, feeds);
      expect([...(after.logits!.data as Float32Array)]).toEqual([...(before.logits!.data as Float32Array)]);
    }
  });

  test("does open the rewritten graph through createSession and leave no file behind", async () => {
    const dir = tempDir("sawt-tied-test-");
    const original = join(dir.path, "model.onnx");
    writeFileSync(original, tiedModel());
    const leftovers = () => readdirSync(tmpdir()).filter((f) => f.startsWith("sawt-tied-")).length;
    const before = leftovers();
    const plain = await createSession(original, { intraOpThreads: 1 });
    const tied = await createSession(original, { intraOpThreads: 1, shareTransposedWeights: true });
    expect(leftovers()).toBe(before);
    try {
      const feeds = {
        ids: new ort.Tensor("int64", BigInt64Array.of(1n, 3n), [1, 2]),
        x: new ort.Tensor(
          "float32",
          Float32Array.from({ length: 6 }, (_, i) => i - 2),
          [1, 2, 3],
        ),
      };
      const a = await plain.session.run(feeds);
      const b = await tied.session.run(feeds);
      expect([...(b.logits!.data as Float32Array)]).toEqual([...(a.logits!.data as Float32Array)]);
    } finally {
      await Promise.all([plain.session.release(), tied.session.release()]);
      dir.remove();
    }
  });
});
