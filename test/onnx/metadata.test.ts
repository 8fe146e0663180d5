import { sileroModel } from "../asr/support.ts";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import {
  ElemTypeCode,
  GraphField,
  ModelField,
  TensorField,
  TensorTypeField,
  TypeField,
  ValueInfoField,
} from "../../src/onnx/format.ts";
import {
  OnnxFormatError,
  readOnnxMetadata,
  readOnnxModelInfo,
  readOnnxModelInfoFile,
  readOnnxModelInfoFrom,
} from "../../src/onnx/metadata.ts";
import { bytesSource, type ByteSource } from "../../src/onnx/protobuf-reader.ts";
import { GraphBuilder, tensor } from "../support/onnx/builder.ts";
import { ProtoWriter } from "../../src/onnx/protobuf-writer.ts";

const SILERO = sileroModel();
const dir = mkdtempSync(join(tmpdir(), "sawt-onnxmeta-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sampleModel(weights = 4): Uint8Array {
  const g = new GraphBuilder("sample");
  const ids = g.input("input", "int64", [1, "N"]);
  g.input("scales", "float32", [3]);
  g.input("flags", "bool", [null]);
  g.initializer("w", tensor(new Float32Array(weights)));
  g.output(g.op("Cast", [ids], { to: 1 }), "output", "float32", [1, 1, "T"]);
  g.output(ids, "lengths", "int64");
  return g.toModel({ metadata: { model_type: "vits", sample_rate: 16000, comment: "piper" } });
}

describe("readOnnxModelInfo", () => {
  test("reads metadata, inputs and outputs when the builder declared them", () => {
    const info = readOnnxModelInfo(sampleModel());
    expect(info.metadata).toEqual({ model_type: "vits", sample_rate: "16000", comment: "piper" });
    expect(info.inputs).toEqual([
      { name: "input", elemType: "int64", dims: [1, "N"] },
      { name: "scales", elemType: "float32", dims: [3] },
      { name: "flags", elemType: "bool", dims: [null] },
    ]);
    expect(info.outputs).toEqual([
      { name: "output", elemType: "float32", dims: [1, 1, "T"] },
      { name: "lengths", elemType: "int64", dims: null },
    ]);
  });

  test("returns only the metadata map when readOnnxMetadata is used", () => {
    expect(readOnnxMetadata(sampleModel())).toEqual({ model_type: "vits", sample_rate: "16000", comment: "piper" });
  });

  test("agrees with onnxruntime when reading the real Silero VAD model", async () => {
    const info = readOnnxModelInfoFile(SILERO);
    expect(info.inputs.map((i) => [i.name, i.elemType])).toEqual([
      ["input", "float32"],
      ["state", "float32"],
      ["sr", "int64"],
    ]);
    expect(info.outputs.map((o) => o.name)).toEqual(["output", "stateN"]);
    expect(info.inputs[1]?.dims).toEqual([2, null, 128]);
    const session = await ort.InferenceSession.create(SILERO);
    expect(info.inputs.map((i) => i.name)).toEqual([...session.inputNames]);
    expect(info.outputs.map((o) => o.name)).toEqual([...session.outputNames]);
    await session.release();
  });

  test("reads the same info from a file as from bytes", async () => {
    const bytes = await Bun.file(SILERO).bytes();
    expect(readOnnxModelInfo(bytes)).toEqual(readOnnxModelInfoFile(SILERO));
  });

  test("reads a few kilobytes when the model carries a large initializer", () => {
    const bytes = sampleModel(4_000_000); // 16 MB of weights before the graph's inputs
    let bytesRead = 0;
    const inner = bytesSource(bytes);
    const counting: ByteSource = {
      size: inner.size,
      read: (offset, length) => ((bytesRead += length), inner.read(offset, length)),
    };
    expect(readOnnxModelInfoFrom(counting).metadata.model_type).toBe("vits");
    expect(bytesRead).toBeLessThan(4096);
  });

  test("leaves out inputs backed by an initializer when onnxruntime does too", async () => {
    // Old exporters list initializers among graph inputs; onnxruntime does not ask for them.
    const valueInfo = (w: ProtoWriter, name: string) =>
      w
        .string(ValueInfoField.NAME, name)
        .message(ValueInfoField.TYPE, (t) =>
          t.message(TypeField.TENSOR_TYPE, (tt) => tt.varint(TensorTypeField.ELEM_TYPE, ElemTypeCode.float32)),
        );
    const bytes = new ProtoWriter()
      .varint(ModelField.IR_VERSION, 8)
      .message(ModelField.GRAPH, (g) =>
        g
          .message(GraphField.NODE, (n) => n.string(1, "x").string(1, "b").string(2, "y").string(4, "Add"))
          .string(GraphField.NAME, "legacy")
          .message(GraphField.INITIALIZER, (t) =>
            t
              .packedVarints(TensorField.DIMS, [1])
              .varint(TensorField.DATA_TYPE, ElemTypeCode.float32)
              .string(TensorField.NAME, "b")
              .bytes(TensorField.RAW_DATA, new Uint8Array(4)),
          )
          .message(GraphField.INPUT, (i) => valueInfo(i, "x"))
          .message(GraphField.INPUT, (i) => valueInfo(i, "b"))
          .message(GraphField.OUTPUT, (o) => valueInfo(o, "y")),
      )
      .message(ModelField.OPSET_IMPORT, (o) => o.string(1, "").varint(2, 17))
      .finish();
    // Severity 3 (error): onnxruntime warns about exactly this layout, which is the point here.
    const session = await ort.InferenceSession.create(bytes, { logSeverityLevel: 3 });
    expect([...session.inputNames]).toEqual(["x"]);
    await session.release();
    expect(readOnnxModelInfo(bytes).inputs.map((i) => i.name)).toEqual(["x"]);
  });

  test("reads negative dims when an exporter wrote -1", () => {
    const g = new GraphBuilder("neg");
    g.output(g.input("x", "float32", [-1, 4]), "y", "float32", [-1, 4]);
    expect(readOnnxModelInfo(g.toModel()).inputs[0]?.dims).toEqual([-1, 4]);
  });

  test("keeps the last value when a metadata key repeats", () => {
    const bytes = new ProtoWriter()
      .raw(sampleModel())
      .message(ModelField.METADATA_PROPS, (e) => e.string(1, "model_type").string(2, "whisper"))
      .finish();
    expect(readOnnxMetadata(bytes).model_type).toBe("whisper");
  });
});

describe("readOnnxModelInfo on malformed input", () => {
  test("throws OnnxFormatError when the input is empty", () => {
    expect(() => readOnnxModelInfo(new Uint8Array())).toThrow(/empty/);
  });

  test("throws OnnxFormatError when the file is JSON, not ONNX", () => {
    const bytes = new TextEncoder().encode('{"audio": {"sample_rate": 22050}}');
    expect(() => readOnnxModelInfo(bytes)).toThrow(OnnxFormatError);
  });

  test("throws OnnxFormatError when a real model is truncated", async () => {
    const bytes = await Bun.file(SILERO).bytes();
    expect(() => readOnnxModelInfo(bytes.subarray(0, 50_000))).toThrow(/not a valid ONNX model: .*runs past the end/);
  });

  test("throws OnnxFormatError when a well-formed message has no graph", () => {
    const bytes = new ProtoWriter().varint(ModelField.IR_VERSION, 8).finish();
    expect(() => readOnnxModelInfo(bytes)).toThrow(/no graph/);
  });

  test("names the file when a file on disk is malformed", () => {
    const path = join(dir, "broken.onnx");
    writeFileSync(path, "not a model at all");
    expect(() => readOnnxModelInfoFile(path)).toThrow(path);
  });

  test("returns or throws OnnxFormatError when bytes of a valid model are corrupted", () => {
    const good = sampleModel();
    let seed = 7;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let round = 0; round < 500; round++) {
      const bytes = good.slice();
      for (let k = 0; k < 1 + rand(4); k++) bytes[rand(bytes.length)] = rand(256);
      try {
        readOnnxModelInfo(bytes);
      } catch (err) {
        expect(err).toBeInstanceOf(OnnxFormatError);
      }
    }
  });
});
