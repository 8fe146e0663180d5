/**
 * An editable view of an ONNX model's main graph for load-time rewrites (conv-lift.ts, and the
 * node reader and field writers for asr/vad/silero-sequence.ts): nodes
 * with their inputs, outputs and attributes decoded, initializers and value infos with their
 * names and ranks, and everything else kept as byte ranges of the original file. Encoding writes
 * untouched messages back byte for byte and never copies a weight: the model is assembled once
 * from slices of the original bytes, so a rewrite costs one model-sized buffer, not three.
 */
import {
  AttributeField,
  AttributeType,
  DataLocation,
  GraphField,
  ModelField,
  NodeField,
  OpsetField,
  TensorField,
} from "./format.ts";
import { concatBytes } from "../audio/concat.ts";
import { bytesSource, type ProtoField, ProtoFormatError, ProtoReader } from "./protobuf-reader.ts";
import { ProtoWriter, WireType } from "./protobuf-writer.ts";

/** GraphProto and TensorProto fields read here besides those onnx-format.ts names (onnx.proto). */
const TENSOR_INT64_DATA = 7;
const TYPE_TENSOR = 1;
const TENSOR_TYPE_SHAPE = 2;
const SHAPE_DIM = 1;
const INT64 = 7;

/** A node attribute: its name and, for the kinds a rewrite changes, its value. */
export interface GraphAttribute {
  readonly name: string;
  readonly type: number;
  /** INTS values (and the one INT value as a single element for INT). */
  readonly ints: readonly number[];
  /** The `value` tensor of a Constant node: its dims and int64 values when it holds int64 data. */
  readonly tensor?: ConstantTensor;
  /** The original AttributeProto, written back when the attribute is unchanged. */
  readonly source?: ProtoField;
  /** The GraphProto payload of a graph-valued attribute (an `If` branch, a `Loop` body). */
  readonly graph?: ProtoField;
  /** Whether it holds a list of graphs (GRAPHS), which no rewrite walks. */
  readonly hasGraphs?: boolean;
}

/** What a rewrite needs of a constant tensor. */
export interface ConstantTensor {
  readonly dims: readonly number[];
  /** Its values when it is int64 (raw_data or int64_data), else undefined. */
  readonly int64?: readonly number[];
}

/** A node of a graph. A node with `source` and `changed` false is written back verbatim. */
export interface GraphNode {
  inputs: string[];
  outputs: string[];
  readonly name: string;
  readonly opType: string;
  readonly domain: string;
  attributes: GraphAttribute[];
  /** Fields other than inputs, outputs, name, op type, domain and attributes (doc string, …). */
  readonly otherFields: readonly ProtoField[];
  readonly source?: ProtoField;
  changed: boolean;
}

/** The editable main graph of a model. */
export interface EditableModel {
  /** The default domain's opset version. */
  readonly opset: number;
  nodes: GraphNode[];
  /** Rank of every initializer, graph input and value info whose shape the file states. */
  readonly declaredRanks: ReadonlyMap<string, number>;
  /** Initializers' constant int64 values and dims. */
  readonly constants: ReadonlyMap<string, ConstantTensor>;
  readonly graphOutputs: ReadonlySet<string>;
  /** Why the model must not be rewritten (subgraphs, external data), if any. */
  readonly unsupported?: string;
  /** Value infos to drop on encoding (tensors a rewrite removed). */
  readonly droppedValueInfo: Set<string>;
  /** Initializers a rewrite adds. */
  readonly addedInitializers: { name: string; int64: readonly number[] }[];
  /** Initializers a rewrite gives new dims (same data, e.g. [O, I, k] → [O, I, 1, k]). */
  readonly reshapedInitializers: Map<string, readonly number[]>;
  readonly bytes: Uint8Array;
  readonly modelFields: readonly ProtoField[];
  readonly graphFields: readonly ProtoField[];
  readonly valueInfoNames: ReadonlyMap<ProtoField, string>;
  readonly initializerNames: ReadonlyMap<ProtoField, string>;
}

/** The int64 values of a varint field, packed or not (negatives as ten-byte two's complement). */
export function readInt64s(reader: ProtoReader, f: ProtoField): number[] {
  if (f.wireType === WireType.VARINT) return [f.varint];
  const values: number[] = [];
  let value = 0n;
  let shift = 0n;
  for (const b of reader.source.read(f.start, f.end - f.start)) {
    value |= BigInt(b & 0x7f) << shift;
    shift += 7n;
    if (b >= 0x80) continue;
    values.push(Number(BigInt.asIntN(64, value)));
    value = 0n;
    shift = 0n;
  }
  if (shift !== 0n) throw new ProtoFormatError(`truncated packed field ${f.field}`, f.start);
  return values;
}

function readTensor(reader: ProtoReader): ConstantTensor & { name: string; external: boolean } {
  let name = "";
  let external = false;
  let dataType = 0;
  const dims: number[] = [];
  let int64: number[] | undefined;
  for (const f of reader.fields()) {
    if (f.field === TensorField.DIMS) dims.push(...readInt64s(reader, f));
    else if (f.field === TensorField.NAME) name = reader.string(f);
    else if (f.field === TensorField.DATA_TYPE) dataType = reader.int(f);
    else if (f.field === TensorField.DATA_LOCATION) external = reader.int(f) === DataLocation.EXTERNAL;
    else if (f.field === TENSOR_INT64_DATA) (int64 ??= []).push(...readInt64s(reader, f));
    else if (f.field === TensorField.RAW_DATA && f.end - f.start <= 8 * 64) {
      const raw = reader.source.read(f.start, f.end - f.start);
      const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
      int64 = [];
      for (let i = 0; i + 8 <= raw.length; i += 8) int64.push(Number(view.getBigInt64(i, true)));
    }
  }
  return { name, external, dims, int64: dataType === INT64 ? int64 : undefined };
}

function readAttribute(reader: ProtoReader, source: ProtoField): GraphAttribute {
  let name = "";
  let type = 0;
  const ints: number[] = [];
  let tensor: ConstantTensor | undefined;
  let graph: ProtoField | undefined;
  let hasGraphs = false;
  for (const f of reader.fields()) {
    if (f.field === AttributeField.NAME) name = reader.string(f);
    else if (f.field === AttributeField.TYPE) type = reader.int(f);
    else if (f.field === AttributeField.INTS || f.field === AttributeField.I) ints.push(...readInt64s(reader, f));
    else if (f.field === AttributeField.T) tensor = readTensor(reader.nested(f));
    else if (f.field === AttributeField.G) graph = f;
    else if (f.field === AttributeField.GRAPHS) hasGraphs = true;
  }
  return { name, type, ints, tensor, source, graph, hasGraphs };
}

/**
 * Decodes the NodeProto field `source` of the GraphProto `reader` reads; graph-valued attributes
 * keep their GraphProto as a byte range (`GraphAttribute.graph`).
 */
export function readNode(reader: ProtoReader, source: ProtoField): GraphNode & { hasSubgraph: boolean } {
  const node = { inputs: [] as string[], outputs: [] as string[], name: "", opType: "", domain: "" };
  const attributes: GraphAttribute[] = [];
  const otherFields: ProtoField[] = [];
  let hasSubgraph = false;
  const fields = reader.nested(source);
  for (const f of fields.fields()) {
    if (f.field === NodeField.INPUT) node.inputs.push(fields.string(f));
    else if (f.field === NodeField.OUTPUT) node.outputs.push(fields.string(f));
    else if (f.field === NodeField.NAME) node.name = fields.string(f);
    else if (f.field === NodeField.OP_TYPE) node.opType = fields.string(f);
    else if (f.field === NodeField.DOMAIN) node.domain = fields.string(f);
    else if (f.field === NodeField.ATTRIBUTE) {
      const attribute = readAttribute(fields.nested(f), f);
      hasSubgraph ||= attribute.hasGraphs === true || attribute.graph !== undefined;
      attributes.push(attribute);
    } else otherFields.push(f);
  }
  return { ...node, attributes, otherFields, source, changed: false, hasSubgraph };
}

/** Name and rank (when its shape is declared) of a ValueInfoProto. */
export function valueInfoRank(reader: ProtoReader): { name: string; rank: number | undefined } {
  let name = "";
  let rank: number | undefined;
  for (const f of reader.fields()) {
    if (f.field === 1) name = reader.string(f);
    else if (f.field === 2) {
      const type = reader.nested(f);
      for (const t of type.fields()) {
        if (t.field !== TYPE_TENSOR) continue;
        const tensorType = type.nested(t);
        for (const s of tensorType.fields()) {
          if (s.field !== TENSOR_TYPE_SHAPE) continue;
          const shape = tensorType.nested(s);
          rank = 0;
          for (const d of shape.fields()) if (d.field === SHAPE_DIM) rank++;
        }
      }
    }
  }
  return { name, rank };
}

/** Decodes the main graph of `bytes` (an ONNX ModelProto) for editing. Throws ProtoFormatError on malformed input. */
export function readEditableModel(bytes: Uint8Array): EditableModel {
  const model = new ProtoReader(bytesSource(bytes));
  const modelFields = [...model.fields()];
  let opset = 1;
  for (const f of modelFields) {
    if (f.field !== ModelField.OPSET_IMPORT) continue;
    let domain = "";
    let version = 0;
    const entry = model.nested(f);
    for (const g of entry.fields()) {
      if (g.field === OpsetField.DOMAIN) domain = entry.string(g);
      else if (g.field === OpsetField.VERSION) version = entry.int(g);
    }
    if (domain === "" || domain === "ai.onnx") opset = version;
  }
  const graphField = modelFields.find((f) => f.field === ModelField.GRAPH);
  if (graphField === undefined) throw new Error("the model has no graph");
  const graph = model.nested(graphField);
  const graphFields = [...graph.fields()];
  const nodes: GraphNode[] = [];
  const declaredRanks = new Map<string, number>();
  const constants = new Map<string, ConstantTensor>();
  const graphOutputs = new Set<string>();
  const valueInfoNames = new Map<ProtoField, string>();
  const initializerNames = new Map<ProtoField, string>();
  let unsupported: string | undefined;
  for (const f of graphFields) {
    if (f.field === GraphField.NODE) {
      const node = readNode(graph, f);
      if (node.hasSubgraph) unsupported ??= `node ${node.opType} has a subgraph`;
      nodes.push(node);
    } else if (f.field === GraphField.INITIALIZER) {
      const tensor = readTensor(graph.nested(f));
      if (tensor.external) unsupported ??= "weights are stored in external data files";
      declaredRanks.set(tensor.name, tensor.dims.length);
      constants.set(tensor.name, tensor);
      initializerNames.set(f, tensor.name);
    } else if (f.field === GraphField.INPUT || f.field === GraphField.OUTPUT || f.field === GraphField.VALUE_INFO) {
      const { name, rank } = valueInfoRank(graph.nested(f));
      if (f.field === GraphField.OUTPUT) graphOutputs.add(name);
      if (f.field === GraphField.VALUE_INFO) valueInfoNames.set(f, name);
      if (rank !== undefined && !declaredRanks.has(name)) declaredRanks.set(name, rank);
    }
  }
  return {
    opset,
    nodes,
    declaredRanks,
    constants,
    graphOutputs,
    unsupported,
    droppedValueInfo: new Set(),
    addedInitializers: [],
    reshapedInitializers: new Map(),
    bytes,
    modelFields,
    graphFields,
    valueInfoNames,
    initializerNames,
  };
}

/** A message assembled from small written pieces and slices of the original bytes. */
export class Pieces {
  readonly list: Uint8Array[] = [];
  length = 0;

  add(bytes: Uint8Array): void {
    this.list.push(bytes);
    this.length += bytes.length;
  }

  /** Appends field `f` of the original bytes as it was (key, length and payload), not copied. */
  copy(bytes: Uint8Array, f: ProtoField): void {
    this.add(fieldKey(f));
    this.add(bytes.subarray(f.start, f.end));
  }

  /** Appends a length-delimited field whose payload is `body`. */
  nested(field: number, body: Pieces): void {
    this.add(new ProtoWriter().tag(field, WireType.LEN).rawVarint(body.length).finish());
    for (const piece of body.list) this.add(piece);
  }
}

/** The key (and for a length-delimited field its length) that precedes field `f`'s payload. */
function fieldKey(f: ProtoField): Uint8Array {
  const key = new ProtoWriter().tag(f.field, f.wireType);
  if (f.wireType === WireType.LEN) key.rawVarint(f.end - f.start);
  return key.finish();
}

/** Field `f` of `bytes` encoded as it was (key, length and payload), in a buffer of its own. */
export function copyField(bytes: Uint8Array, f: ProtoField): Uint8Array {
  return concatBytes([fieldKey(f), bytes.subarray(f.start, f.end)]);
}

/** A TensorProto (the message body) holding `values` as a 1-D int64 tensor named `name`. */
export function int64Tensor(name: string, values: readonly number[]): Uint8Array {
  const raw = new Uint8Array(values.length * 8);
  const view = new DataView(raw.buffer);
  values.forEach((v, i) => view.setBigInt64(i * 8, BigInt(v), true));
  return new ProtoWriter()
    .packedVarints(TensorField.DIMS, [values.length])
    .varint(TensorField.DATA_TYPE, INT64)
    .string(TensorField.NAME, name)
    .bytes(TensorField.RAW_DATA, raw)
    .finish();
}

/** Appends `attribute` to `body`: as it was, or new, or its graph replaced by `subgraph`. */
function encodeAttribute(body: Pieces, bytes: Uint8Array, attribute: GraphAttribute, subgraph?: Pieces): void {
  const { source } = attribute;
  if (source === undefined) {
    const w = new ProtoWriter().message(NodeField.ATTRIBUTE, (a) => {
      a.string(AttributeField.NAME, attribute.name);
      if (attribute.type === AttributeType.INT) a.varint(AttributeField.I, attribute.ints[0] ?? 0);
      else for (const v of attribute.ints) a.varint(AttributeField.INTS, v);
      a.varint(AttributeField.TYPE, attribute.type);
    });
    return body.add(w.finish());
  }
  if (subgraph === undefined) return body.copy(bytes, source);
  const fields = new Pieces();
  for (const g of new ProtoReader(bytesSource(bytes), source.start, source.end).fields()) {
    if (g.field === AttributeField.G) fields.nested(AttributeField.G, subgraph);
    else fields.copy(bytes, g);
  }
  body.nested(NodeField.ATTRIBUTE, fields);
}

/** NodeProto of `node`: unchanged parts as slices of `bytes`, graph attributes from `subgraphs`. */
export function encodeNode(
  bytes: Uint8Array,
  node: GraphNode,
  subgraphs: ReadonlyMap<GraphAttribute, Pieces> = new Map(),
): Pieces {
  const w = new ProtoWriter();
  for (const input of node.inputs) w.string(NodeField.INPUT, input);
  for (const output of node.outputs) w.string(NodeField.OUTPUT, output);
  if (node.name !== "") w.string(NodeField.NAME, node.name);
  w.string(NodeField.OP_TYPE, node.opType);
  if (node.domain !== "") w.string(NodeField.DOMAIN, node.domain);
  const body = new Pieces();
  body.add(w.finish());
  for (const attribute of node.attributes) encodeAttribute(body, bytes, attribute, subgraphs.get(attribute));
  for (const f of node.otherFields) body.copy(bytes, f);
  return body;
}

/** NodeProto bytes of `node` in one buffer (see {@link encodeNode}). */
export function writeNode(bytes: Uint8Array, node: GraphNode): Uint8Array {
  return concatBytes(encodeNode(bytes, node).list);
}

/** A TensorProto with new dims and every other field (its data above all) as it was. */
function reshapedTensor(bytes: Uint8Array, f: ProtoField, dims: readonly number[]): Pieces {
  const body = new Pieces();
  body.add(new ProtoWriter().packedVarints(TensorField.DIMS, dims).finish());
  for (const g of new ProtoReader(bytesSource(bytes), f.start, f.end).fields())
    if (g.field !== TensorField.DIMS) body.copy(bytes, g);
  return body;
}

/**
 * Encodes the model with its edited graph as a list of pieces whose concatenation is the file:
 * unchanged nodes and every weight are slices of the original bytes, not copies.
 */
export function encodeEditableModel(model: EditableModel): readonly Uint8Array[] {
  const { bytes } = model;
  const graph = new Pieces();
  for (const node of model.nodes) {
    if (node.source !== undefined && !node.changed) graph.copy(bytes, node.source);
    else graph.nested(GraphField.NODE, encodeNode(bytes, node));
  }
  for (const f of model.graphFields) {
    if (f.field === GraphField.NODE) continue;
    const valueInfo = model.valueInfoNames.get(f);
    if (valueInfo !== undefined && model.droppedValueInfo.has(valueInfo)) continue;
    const dims = model.reshapedInitializers.get(model.initializerNames.get(f) ?? "");
    if (dims === undefined) graph.copy(bytes, f);
    else graph.nested(GraphField.INITIALIZER, reshapedTensor(bytes, f, dims));
  }
  for (const { name, int64 } of model.addedInitializers) {
    const body = new Pieces();
    body.add(int64Tensor(name, int64));
    graph.nested(GraphField.INITIALIZER, body);
  }
  const out = new Pieces();
  for (const f of model.modelFields) {
    if (f.field === ModelField.GRAPH) out.nested(ModelField.GRAPH, graph);
    else out.copy(bytes, f);
  }
  return out.list;
}

/** Encodes the model with its edited graph into one buffer (see {@link encodeEditableModel}). */
export function writeEditableModel(model: EditableModel): Uint8Array {
  return concatBytes(encodeEditableModel(model));
}
