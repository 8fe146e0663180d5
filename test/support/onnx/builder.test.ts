import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { readOnnxModelInfo } from "../../../src/onnx/metadata.ts";
import { Attr, GraphBuilder, tensor, writeModel } from "./builder.ts";

const dir = mkdtempSync(join(tmpdir(), "sawt-builder-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const f32 = (data: number[], dims: number[]) => new ort.Tensor("float32", Float32Array.from(data), dims);
const i64 = (data: number[], dims: number[]) => new ort.Tensor("int64", BigInt64Array.from(data, BigInt), dims);

async function run(bytes: Uint8Array, feeds: Record<string, ort.Tensor>): Promise<Record<string, ort.Tensor>> {
  const session = await ort.InferenceSession.create(bytes);
  try {
    return (await session.run(feeds)) as Record<string, ort.Tensor>;
  } finally {
    await session.release();
  }
}

describe("GraphBuilder", () => {
  test("computes exact MatMul and Add results when weights are initializers", async () => {
    const g = new GraphBuilder("affine");
    const x = g.input("x", "float32", [2, 2]);
    const w = g.initializer("w", tensor(new Float32Array([1, 2, 3, 4]), [2, 2]));
    g.output(g.op("Add", [g.op("MatMul", [x, w]), g.float([10, 20])]), "y", "float32", [2, 2]);
    const out = await run(g.toModel(), { x: f32([1, 1, 0, 2], [2, 2]) });
    // [1 1; 0 2] x [1 2; 3 4] = [4 6; 6 8], plus [10 20] per row.
    expect(Array.from(out.y?.data as Float32Array)).toEqual([14, 26, 16, 28]);
    expect(out.y?.dims).toEqual([2, 2]);
  });

  test("declares names, element types and symbolic dims when onnxruntime loads the model", async () => {
    const g = new GraphBuilder("io");
    const ids = g.input("ids", "int64", [1, "N"]);
    const mask = g.input("mask", "bool", ["N"]);
    const count = g.input("count", "int32", []);
    g.output(ids, "ids_out", "int64", [1, "N"]);
    g.output(g.op("Not", [mask]), "mask_out", "bool", ["N"]);
    g.output(g.op("Add", [count, g.constant(tensor(new Int32Array([5]), []))]), "count_out", "int32", []);
    const session = await ort.InferenceSession.create(g.toModel());
    expect(session.inputNames).toEqual(["ids", "mask", "count"]);
    expect(session.outputNames).toEqual(["ids_out", "mask_out", "count_out"]);
    expect(session.inputMetadata).toEqual([
      { name: "ids", isTensor: true, type: "int64", shape: [1, "N"] },
      { name: "mask", isTensor: true, type: "bool", shape: ["N"] },
      { name: "count", isTensor: true, type: "int32", shape: [] },
    ]);
    const out = (await session.run({
      ids: i64([7, 8, 9], [1, 3]),
      mask: new ort.Tensor("bool", Uint8Array.from([1, 0, 1]), [3]),
      count: new ort.Tensor("int32", Int32Array.from([2]), []),
    })) as Record<string, ort.Tensor>;
    await session.release();
    expect(Array.from(out.ids_out?.data as BigInt64Array)).toEqual([7n, 8n, 9n]);
    expect(Array.from(out.mask_out?.data as Uint8Array)).toEqual([0, 1, 0]);
    expect(Array.from(out.count_out?.data as Int32Array)).toEqual([7]);
  });

  test("encodes int, ints, float, floats, string and tensor attributes when ops need them", async () => {
    const g = new GraphBuilder("attrs");
    const x = g.input("x", "float32", [2, 3]);
    const picked = g.op("Gather", [x, g.int64([1, 0])], { axis: 1 }); // int
    const flipped = g.op("Transpose", [picked], { perm: [1, 0] }); // ints
    const leaky = g.op("LeakyRelu", [flipped], { alpha: Attr.float(2) }); // float, whole-valued
    const scale = g.op("Constant", [], { value_floats: [0.5, 0.25] }); // floats
    const scaled = g.op("Mul", [leaky, g.op("Unsqueeze", [scale, g.int64([1])])]);
    const pads = g.op("Constant", [], { value: tensor(BigInt64Array.from([0n, 1n, 0n, 0n])) }); // tensor
    g.output(g.op("Pad", [scaled, pads], { mode: "edge" }), "y", "float32", [2, 3]); // string
    const out = await run(g.toModel(), { x: f32([1, -2, 3, 4, 5, 6], [2, 3]) });
    // Gather cols [1,0] → [[-2,1],[5,4]]; transpose → [[-2,5],[1,4]]; leaky(α=2) → [[-4,5],[1,4]];
    // rows × [0.5, 0.25] → [[-2,2.5],[0.25,1]]; edge-pad one column on the left.
    expect(Array.from(out.y?.data as Float32Array)).toEqual([-2, -2, 2.5, 0.25, 0.25, 1]);
  });

  test("generates distinct intermediate names when the same op repeats", async () => {
    const g = new GraphBuilder("chain");
    let v = g.input("x", "float32", [1]);
    const one = g.float([1]);
    const names = new Set<string>();
    for (let i = 0; i < 50; i++) names.add((v = g.op("Add", [v, one])));
    g.output(v, "y", "float32", [1]);
    expect(names.size).toBe(50);
    expect(names.has("y")).toBe(false);
    const out = await run(g.toModel(), { x: f32([0.5], [1]) });
    expect(Array.from(out.y?.data as Float32Array)).toEqual([50.5]);
  });

  test("returns every output when a node has several", async () => {
    const g = new GraphBuilder("split");
    const x = g.input("x", "float32", [4]);
    const [a, b] = g.opN("Split", [x, g.int64([1, 3])], 2, { axis: 0 });
    g.output(a as string, "a", "float32", [1]);
    g.output(b as string, "b", "float32", [3]);
    const out = await run(g.toModel(), { x: f32([1, 2, 3, 4], [4]) });
    expect(Array.from(out.a?.data as Float32Array)).toEqual([1]);
    expect(Array.from(out.b?.data as Float32Array)).toEqual([2, 3, 4]);
  });

  test("passes a graph input through when it is declared as an output under another name", async () => {
    const g = new GraphBuilder("passthrough");
    g.output(g.input("x", "float32", ["T"]), "y", "float32", ["T"]);
    const out = await run(g.toModel(), { x: f32([3, 4], [2]) });
    expect(Array.from(out.y?.data as Float32Array)).toEqual([3, 4]);
  });

  test("throws when an op consumes a value that was never defined", () => {
    const g = new GraphBuilder("bad");
    expect(() => g.op("Relu", ["nope"])).toThrow(/nope is not defined/);
  });

  test("throws when a name is defined twice", () => {
    const g = new GraphBuilder("dup");
    g.input("x", "float32", [1]);
    expect(() => g.input("x", "float32", [1])).toThrow(/already defined/);
    expect(() => g.initializer("x", tensor(new Float32Array([1])))).toThrow(/already defined/);
  });

  test("throws when tensor dims do not match the data length", () => {
    expect(() => tensor(new Float32Array(3), [2, 2])).toThrow(/hold 4 elements, data has 3/);
  });

  test("writes metadata, producer, ir_version and opset when the model is serialised", () => {
    const g = new GraphBuilder("meta");
    g.output(g.input("x", "float32", [1]), "y");
    const bytes = g.toModel({
      metadata: { model_type: "vits", sample_rate: 22050, has_espeak: true },
      producerName: "p",
    });
    const info = readOnnxModelInfo(bytes);
    expect(info.metadata).toEqual({ model_type: "vits", sample_rate: "22050", has_espeak: "true" });
    expect(info.producerName).toBe("p");
    expect(info.irVersion).toBe(8);
    expect(info.opsets).toEqual([{ domain: "", version: 17 }]);
    expect(info.graphName).toBe("meta");
  });

  test("loads from disk when written with writeModel into a new directory", async () => {
    const g = new GraphBuilder("disk");
    g.output(g.op("Neg", [g.input("x", "float32", [1])]), "y", "float32", [1]);
    const path = await writeModel(join(dir, "nested", "deeper", "m.onnx"), g.toModel());
    const session = await ort.InferenceSession.create(path);
    const out = (await session.run({ x: f32([2], [1]) })) as Record<string, ort.Tensor>;
    await session.release();
    expect(Array.from(out.y?.data as Float32Array)).toEqual([-2]);
  });
});

describe("onnxruntime-node 1.30", () => {
  // Pinned so that an upgrade which starts exposing custom metadata is noticed: until then, packs
  // are read with readOnnxModelInfo (src/onnx/metadata.ts).
  test("does not expose custom model metadata when a session is created", async () => {
    const g = new GraphBuilder("meta");
    g.output(g.input("x", "float32", [1]), "y");
    const session = await ort.InferenceSession.create(g.toModel({ metadata: { model_type: "vits" } }));
    const names = new Set<string>();
    for (let o: object | null = session; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
      for (const n of Object.getOwnPropertyNames(o)) names.add(n);
    }
    await session.release();
    const metadataLike = [...names].filter((n) => /meta|producer|custom/i.test(n)).sort();
    expect(metadataLike).toEqual(["inputMetadata", "outputMetadata"]);
  });
});
