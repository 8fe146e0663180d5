/**
 * A read-only view of an ONNX graph and, recursively, the graphs its nodes hold as attributes (an
 * `If`'s branches, a `Loop`'s body), for rewrites that must see every use of a weight (the tied
 * transpose, ./tied-transpose.ts): nodes decoded by ./graph.ts's reader, the names each graph
 * declares, its initializers and value infos by field, and the ranks the file declares. graph.ts's
 * editable model covers the main graph only; this walks into subgraphs and leaves encoding to the
 * rewrite.
 */
import { DataLocation, GraphField, TensorField } from "./format.ts";
import { type GraphAttribute, type GraphNode, readInt64s, readNode, valueInfoRank } from "./graph.ts";
import type { ProtoField, ProtoReader } from "./protobuf-reader.ts";

/** A node of a graph read with {@link readGraph}, with the graphs of its graph-valued attributes. */
export interface NodeEntry {
  readonly field: ProtoField;
  readonly node: GraphNode;
  /** Graph-valued attributes and their graphs. */
  readonly subgraphs: ReadonlyMap<GraphAttribute, GraphView>;
}

/** A GraphProto read for a rewrite: its fields, nodes, declared names, initializers and value infos. */
export interface GraphView {
  readonly reader: ProtoReader;
  readonly fields: readonly ProtoField[];
  readonly nodes: ReadonlyMap<ProtoField, NodeEntry>;
  /** Names this graph declares: initializers, inputs and node outputs. */
  readonly declared: ReadonlySet<string>;
  readonly outputs: ReadonlySet<string>;
  /** Initializers by name with their field (the main graph's are the candidates). */
  readonly initializers: ReadonlyMap<string, ProtoField>;
  /** Value infos by field, for dropping those of removed values. */
  readonly valueInfos: ReadonlyMap<ProtoField, string>;
}

function tensorName(reader: ProtoReader): string {
  for (const f of reader.fields()) if (f.field === TensorField.NAME) return reader.string(f);
  return "";
}

/** Reads a GraphProto and, recursively, the graphs of its nodes' attributes; `ranks` collects declared ranks. */
export function readGraph(reader: ProtoReader, ranks: Map<string, number>): GraphView {
  const fields = [...reader.fields()];
  const nodes = new Map<ProtoField, NodeEntry>();
  const declared = new Set<string>();
  const outputs = new Set<string>();
  const initializers = new Map<string, ProtoField>();
  const valueInfos = new Map<ProtoField, string>();
  for (const f of fields) {
    if (f.field === GraphField.NODE) {
      const node = readNode(reader, f);
      const subgraphs = new Map<GraphAttribute, GraphView>();
      for (const attribute of node.hasSubgraph ? node.attributes : []) {
        if (attribute.graph !== undefined) subgraphs.set(attribute, readGraph(reader.nested(attribute.graph), ranks));
        // A list of graphs is not walked (it could read a weight unseen): such a model is left alone.
        if (attribute.hasGraphs) throw new UnsupportedGraph(`node ${node.opType} has a list of subgraphs`);
      }
      for (const output of node.outputs) declared.add(output);
      nodes.set(f, { field: f, node, subgraphs });
    } else if (f.field === GraphField.INITIALIZER) {
      const name = tensorName(reader.nested(f));
      declared.add(name);
      initializers.set(name, f);
    } else if (f.field === GraphField.INPUT || f.field === GraphField.OUTPUT || f.field === GraphField.VALUE_INFO) {
      const { name, rank } = valueInfoRank(reader.nested(f));
      if (rank !== undefined && !ranks.has(name)) ranks.set(name, rank);
      if (f.field === GraphField.INPUT) declared.add(name);
      if (f.field === GraphField.OUTPUT) outputs.add(name);
      if (f.field === GraphField.VALUE_INFO) valueInfos.set(f, name);
    }
  }
  return { reader, fields, nodes, declared, outputs, initializers, valueInfos };
}

/** A graph the reader will not rewrite (a list of subgraphs could read a weight unseen). */
export class UnsupportedGraph extends Error {}

/** Every node of `graph` and its subgraphs, with the graph it is in. */
export function* allNodes(graph: GraphView): Generator<{ graph: GraphView; entry: NodeEntry }> {
  for (const entry of graph.nodes.values()) {
    yield { graph, entry };
    for (const sub of entry.subgraphs.values()) yield* allNodes(sub);
  }
}

/** Every subgraph of `graph`, nested ones too. */
export function* subgraphsOf(graph: GraphView): Generator<GraphView> {
  for (const entry of graph.nodes.values()) {
    for (const sub of entry.subgraphs.values()) {
      yield sub;
      yield* subgraphsOf(sub);
    }
  }
}

/** A node's INTS attribute `name`, if it has one. */
export function intsOf(node: GraphNode, name: string): readonly number[] | undefined {
  return node.attributes.find((a) => a.name === name)?.ints;
}

/** The 2-D raw-data tensor `f`: its dims, raw data and element size, or undefined when it is not one. */
export function rawMatrix(
  reader: ProtoReader,
  f: ProtoField,
): { dims: [number, number]; raw: ProtoField; size: number } | undefined {
  const tensor = reader.nested(f);
  const dims: number[] = [];
  let raw: ProtoField | undefined;
  for (const g of tensor.fields()) {
    if (g.field === TensorField.DIMS) dims.push(...readInt64s(tensor, g));
    else if (g.field === TensorField.RAW_DATA) raw = g;
    else if (g.field === TensorField.DATA_LOCATION && tensor.int(g) === DataLocation.EXTERNAL) return undefined; // external data
  }
  if (dims.length !== 2 || raw === undefined) return undefined;
  const count = dims[0]! * dims[1]!;
  const bytes = raw.end - raw.start;
  if (count === 0 || bytes % count !== 0) return undefined;
  return { dims: [dims[0]!, dims[1]!], raw, size: bytes / count };
}

/** `raw` (a row-major [rows, cols] matrix of `size`-byte elements) transposed. */
export function transposeMatrix(raw: Uint8Array, rows: number, cols: number, size: number): Uint8Array {
  const out = new Uint8Array(raw.length);
  if (size === 1) {
    for (let r = 0; r < rows; r++) {
      const from = r * cols;
      for (let c = 0; c < cols; c++) out[c * rows + r] = raw[from + c]!;
    }
    return out;
  }
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++)
      out.set(raw.subarray((r * cols + c) * size, (r * cols + c + 1) * size), (c * rows + r) * size);
  return out;
}
