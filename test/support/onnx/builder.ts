/**
 * Builds serialised ONNX models (ModelProto bytes) from TypeScript, for constructed test models
 * that honour Sawt's model contracts without downloadable weights.
 *
 * ```ts
 * const g = new GraphBuilder("double");
 * const x = g.input("x", "float32", [1, "N"]);
 * g.output(g.op("Mul", [x, g.float(2)]), "y", "float32", [1, "N"]);
 * const bytes = g.toModel({ metadata: { model_type: "demo" } });
 * ```
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import {
  AttributeField,
  AttributeType,
  DimField,
  ElemTypeCode,
  EntryField,
  GraphField,
  ModelField,
  NodeField,
  OpsetField,
  ShapeField,
  TensorField,
  TensorTypeField,
  TypeField,
  ValueInfoField,
  type OnnxElemType,
} from "../../../src/onnx/format.ts";
import { ProtoWriter, WireType } from "../../../src/onnx/protobuf-writer.ts";

/** Element types the builder declares for graph inputs and outputs. */
export type ElemType = Extract<OnnxElemType, "float32" | "int64" | "int32" | "bool" | "uint8">;

/** A dimension: a fixed size, a symbolic name, or `null` for an unnamed unknown size. */
export type Dim = number | string | null;

/** A tensor value for initializers and tensor attributes. */
export interface TensorValue {
  readonly kind: "tensor";
  readonly elemType: ElemType;
  readonly dims: readonly number[];
  /** Little-endian element bytes (TensorProto.raw_data). */
  readonly raw: Uint8Array;
}

/** Attribute values whose ONNX type cannot be told from a plain JS value. */
export type TaggedAttr =
  | { readonly kind: "float"; readonly value: number }
  | { readonly kind: "floats"; readonly value: readonly number[] }
  | { readonly kind: "ints"; readonly value: readonly (number | bigint)[] };

/**
 * An attribute value. Plain integers become INT and plain number arrays INTS when every element
 * is an integer, FLOAT/FLOATS otherwise; use {@link Attr} where that guess is wrong (`1.0` is INT).
 */
export type AttrValue = number | bigint | string | readonly number[] | TensorValue | TaggedAttr;

/** Explicitly typed attribute values. */
export const Attr = {
  /** A FLOAT attribute, even for whole numbers. */
  float: (value: number): TaggedAttr => ({ kind: "float", value }),
  /** A FLOATS attribute, even when every element is whole. */
  floats: (value: readonly number[]): TaggedAttr => ({ kind: "floats", value }),
  /** An INTS attribute (also for an empty list). */
  ints: (value: readonly (number | bigint)[]): TaggedAttr => ({ kind: "ints", value }),
} as const;

/** Typed arrays accepted as tensor data. */
export type TensorData = Float32Array | BigInt64Array | Int32Array | readonly boolean[];

/**
 * Makes a tensor value. `dims` defaults to a 1-D tensor of the data's length; pass `[]` for a
 * scalar.
 */
export function tensor(data: TensorData, dims?: readonly number[]): TensorValue {
  const shape = dims ?? [data.length];
  const count = shape.reduce((a, b) => a * b, 1);
  if (count !== data.length) {
    throw new Error(`tensor dims [${shape.join(",")}] hold ${count} elements, data has ${data.length}`);
  }
  if (data instanceof Float32Array) return { kind: "tensor", elemType: "float32", dims: shape, raw: leBytes(data) };
  if (data instanceof BigInt64Array) return { kind: "tensor", elemType: "int64", dims: shape, raw: leBytes(data) };
  if (data instanceof Int32Array) return { kind: "tensor", elemType: "int32", dims: shape, raw: leBytes(data) };
  return { kind: "tensor", elemType: "bool", dims: shape, raw: Uint8Array.from(data, (b) => (b ? 1 : 0)) };
}

// Typed arrays are in platform order; every platform onnxruntime-node ships for is little-endian,
// which is what raw_data requires.
function leBytes(data: Float32Array | BigInt64Array | Int32Array): Uint8Array {
  return new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
}

/** Options of {@link GraphBuilder.toModel}. */
export interface ModelOptions {
  /** ModelProto.metadata_props; values are stringified as onnx's Python tools do. */
  readonly metadata?: Readonly<Record<string, string | number | boolean>>;
  /** Defaults to `sawt-test`. */
  readonly producerName?: string;
  readonly producerVersion?: string;
  /** Defaults to 8. */
  readonly irVersion?: number;
  /** Default-domain opset; defaults to 17. */
  readonly opset?: number;
  readonly docString?: string;
}

interface ValueDecl {
  readonly name: string;
  readonly elemType: ElemType;
  readonly dims: readonly Dim[] | undefined;
}

interface NodeDecl {
  readonly opType: string;
  readonly domain: string;
  readonly name: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attrs: Readonly<Record<string, AttrValue>>;
}

/** Options of {@link GraphBuilder.op} and {@link GraphBuilder.opN}. */
export interface OpOptions {
  /** Operator domain; default is the ONNX domain `""`. */
  readonly domain?: string;
  /** Explicit output names instead of generated ones. */
  readonly outputs?: readonly string[];
}

/** Accumulates one ONNX graph and serialises it as a ModelProto. */
export class GraphBuilder {
  private readonly inputs: ValueDecl[] = [];
  private readonly outputs: ValueDecl[] = [];
  private readonly initializers = new Map<string, TensorValue>();
  private readonly nodes: NodeDecl[] = [];
  /** Every value name defined so far (inputs, initializers, node outputs). */
  private readonly defined = new Set<string>();
  private counter = 0;

  /** @param name GraphProto.name. */
  constructor(readonly name = "graph") {}

  /** Declares a graph input and returns its name. */
  input(name: string, elemType: ElemType, dims?: readonly Dim[]): string {
    this.define(name);
    this.inputs.push({ name, elemType, dims });
    return name;
  }

  /**
   * Declares `value` as a graph output called `name` (default: `value` itself). When the names
   * differ an Identity node is inserted, so any value (even a graph input) can be exposed.
   */
  output(value: string, name: string = value, elemType: ElemType = "float32", dims?: readonly Dim[]): string {
    this.requireDefined(value);
    if (this.outputs.some((o) => o.name === name)) throw new Error(`output ${name} declared twice`);
    if (name !== value) this.op("Identity", [value], {}, { outputs: [name] });
    this.outputs.push({ name, elemType, dims });
    return name;
  }

  /** Adds a named initializer and returns its name. */
  initializer(name: string, value: TensorValue): string {
    this.define(name);
    this.initializers.set(name, value);
    return name;
  }

  /** Adds an initializer under a generated name. */
  constant(value: TensorValue): string {
    return this.initializer(this.fresh("const"), value);
  }

  /** An int64 constant: a scalar for a number, 1-D for an array, unless `dims` says otherwise. */
  int64(values: number | readonly number[], dims?: readonly number[]): string {
    const list = typeof values === "number" ? [values] : values;
    const shape = dims ?? (typeof values === "number" ? [] : [list.length]);
    return this.constant(
      tensor(
        BigInt64Array.from(list, (v) => BigInt(v)),
        shape,
      ),
    );
  }

  /** A float32 constant: a scalar for a number, 1-D for an array, unless `dims` says otherwise. */
  float(values: number | readonly number[], dims?: readonly number[]): string {
    const list = typeof values === "number" ? [values] : values;
    const shape = dims ?? (typeof values === "number" ? [] : [list.length]);
    return this.constant(tensor(Float32Array.from(list), shape));
  }

  /** Adds a single-output node and returns its output name. `""` stands for an absent optional input. */
  op(
    opType: string,
    inputs: readonly string[],
    attrs: Readonly<Record<string, AttrValue>> = {},
    options: OpOptions = {},
  ): string {
    return this.opN(opType, inputs, options.outputs?.length ?? 1, attrs, options)[0] as string;
  }

  /** Adds a node with `outputCount` outputs and returns their names. */
  opN(
    opType: string,
    inputs: readonly string[],
    outputCount: number,
    attrs: Readonly<Record<string, AttrValue>> = {},
    options: OpOptions = {},
  ): string[] {
    for (const i of inputs) if (i !== "") this.requireDefined(i);
    const base = opType.toLowerCase();
    const outputs = options.outputs
      ? [...options.outputs]
      : Array.from({ length: outputCount }, () => this.fresh(base));
    if (outputs.length !== outputCount)
      throw new Error(`${opType}: ${outputs.length} output names for ${outputCount} outputs`);
    for (const o of outputs) this.define(o);
    this.nodes.push({ opType, domain: options.domain ?? "", name: this.fresh(`${base}_node`), inputs, outputs, attrs });
    return outputs;
  }

  /** Serialises the graph as a ModelProto. */
  toModel(options: ModelOptions = {}): Uint8Array {
    const pieces = this.toModelPieces(options);
    const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const piece of pieces) {
      out.set(piece, at);
      at += piece.length;
    }
    return out;
  }

  /**
   * The ModelProto as pieces whose concatenation is {@link toModel}'s bytes; initializer data are
   * views of the tensors' own bytes, so a model of hundreds of MB is written without a copy of it.
   */
  toModelPieces(options: ModelOptions = {}): Uint8Array[] {
    if (this.outputs.length === 0) throw new Error(`graph ${this.name} has no outputs`);
    const head = new ProtoWriter();
    head.varint(ModelField.IR_VERSION, options.irVersion ?? 8);
    head.string(ModelField.PRODUCER_NAME, options.producerName ?? "sawt-test");
    if (options.producerVersion !== undefined) head.string(ModelField.PRODUCER_VERSION, options.producerVersion);
    if (options.docString !== undefined) head.string(ModelField.DOC_STRING, options.docString);
    const graph = this.graphPieces();
    const graphLength = graph.reduce((n, p) => n + p.length, 0);
    head.tag(ModelField.GRAPH, WireType.LEN).rawVarint(graphLength);
    const tail = new ProtoWriter();
    tail.message(ModelField.OPSET_IMPORT, (o) =>
      o.string(OpsetField.DOMAIN, "").varint(OpsetField.VERSION, options.opset ?? 17),
    );
    for (const [key, value] of Object.entries(options.metadata ?? {})) {
      tail.message(ModelField.METADATA_PROPS, (e) =>
        e.string(EntryField.KEY, key).string(EntryField.VALUE, String(value)),
      );
    }
    return [head.finish(), ...graph, tail.finish()];
  }

  /** The GraphProto's fields as pieces: nodes, name, initializers (data not copied), inputs, outputs. */
  private graphPieces(): Uint8Array[] {
    const front = new ProtoWriter();
    for (const node of this.nodes) front.message(GraphField.NODE, (n) => writeNode(n, node));
    front.string(GraphField.NAME, this.name);
    const pieces = [front.finish()];
    for (const [name, value] of this.initializers) {
      const header = new ProtoWriter();
      writeTensorHeader(header, value, name);
      header.tag(TensorField.RAW_DATA, WireType.LEN).rawVarint(value.raw.length);
      const prefix = new ProtoWriter()
        .tag(GraphField.INITIALIZER, WireType.LEN)
        .rawVarint(header.length + value.raw.length)
        .finish();
      pieces.push(prefix, header.finish(), value.raw);
    }
    const back = new ProtoWriter();
    for (const v of this.inputs) back.message(GraphField.INPUT, (i) => writeValueInfo(i, v));
    for (const v of this.outputs) back.message(GraphField.OUTPUT, (o) => writeValueInfo(o, v));
    pieces.push(back.finish());
    return pieces;
  }

  private define(name: string): void {
    if (name === "") throw new Error("value names must not be empty");
    if (this.defined.has(name)) throw new Error(`value ${name} is already defined`);
    this.defined.add(name);
  }

  private requireDefined(name: string): void {
    if (!this.defined.has(name)) throw new Error(`value ${name} is not defined in graph ${this.name}`);
  }

  private fresh(prefix: string): string {
    let name: string;
    do name = `${prefix}_${this.counter++}`;
    while (this.defined.has(name));
    return name;
  }
}

function writeNode(w: ProtoWriter, node: NodeDecl): void {
  for (const i of node.inputs) w.string(NodeField.INPUT, i);
  for (const o of node.outputs) w.string(NodeField.OUTPUT, o);
  w.string(NodeField.NAME, node.name);
  w.string(NodeField.OP_TYPE, node.opType);
  for (const [name, value] of Object.entries(node.attrs))
    w.message(NodeField.ATTRIBUTE, (a) => writeAttribute(a, name, value));
  if (node.domain !== "") w.string(NodeField.DOMAIN, node.domain);
}

function writeAttribute(w: ProtoWriter, name: string, value: AttrValue): void {
  w.string(AttributeField.NAME, name);
  if (typeof value === "string") {
    w.string(AttributeField.S, value).varint(AttributeField.TYPE, AttributeType.STRING);
  } else if (typeof value === "bigint" || (typeof value === "number" && Number.isInteger(value))) {
    w.varint(AttributeField.I, value).varint(AttributeField.TYPE, AttributeType.INT);
  } else if (typeof value === "number") {
    w.float(AttributeField.F, value).varint(AttributeField.TYPE, AttributeType.FLOAT);
  } else if (isNumberArray(value)) {
    if (value.every(Number.isInteger)) writeAttribute(w, name, Attr.ints(value));
    else writeAttribute(w, name, Attr.floats(value));
    return;
  } else if (value.kind === "tensor") {
    w.message(AttributeField.T, (t) => writeTensor(t, value)).varint(AttributeField.TYPE, AttributeType.TENSOR);
  } else if (value.kind === "float") {
    w.float(AttributeField.F, value.value).varint(AttributeField.TYPE, AttributeType.FLOAT);
  } else if (value.kind === "floats") {
    w.packedFloats(AttributeField.FLOATS, value.value).varint(AttributeField.TYPE, AttributeType.FLOATS);
  } else {
    w.packedVarints(AttributeField.INTS, value.value).varint(AttributeField.TYPE, AttributeType.INTS);
  }
}

function isNumberArray(value: AttrValue): value is readonly number[] {
  return Array.isArray(value);
}

function writeTensorHeader(w: ProtoWriter, value: TensorValue, name?: string): void {
  w.packedVarints(TensorField.DIMS, value.dims);
  w.varint(TensorField.DATA_TYPE, ElemTypeCode[value.elemType]);
  if (name !== undefined) w.string(TensorField.NAME, name);
}

function writeTensor(w: ProtoWriter, value: TensorValue, name?: string): void {
  writeTensorHeader(w, value, name);
  w.bytes(TensorField.RAW_DATA, value.raw);
}

function writeValueInfo(w: ProtoWriter, v: ValueDecl): void {
  w.string(ValueInfoField.NAME, v.name);
  w.message(ValueInfoField.TYPE, (type) =>
    type.message(TypeField.TENSOR_TYPE, (t) => {
      t.varint(TensorTypeField.ELEM_TYPE, ElemTypeCode[v.elemType]);
      const dims = v.dims;
      if (dims === undefined) return; // no shape field: rank unknown
      t.message(TensorTypeField.SHAPE, (s) => {
        for (const d of dims) {
          s.message(ShapeField.DIM, (dim) => {
            if (typeof d === "number") dim.varint(DimField.VALUE, d);
            else if (typeof d === "string") dim.string(DimField.PARAM, d);
          });
        }
      });
    }),
  );
}

/** Writes a model's pieces ({@link GraphBuilder.toModelPieces}) to `path` one after another; returns `path`. */
export async function writeModelPieces(path: string, pieces: readonly Uint8Array[]): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  const fd = openSync(path, "w");
  try {
    for (const piece of pieces) writeSync(fd, piece);
  } finally {
    closeSync(fd);
  }
  return path;
}

/** Writes model bytes to `path`, creating parent directories; returns `path`. */
export async function writeModel(path: string, bytes: Uint8Array): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await Bun.write(path, bytes);
  return path;
}
