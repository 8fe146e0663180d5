/**
 * One copy of a weight that a model reads both as written and transposed, at load time.
 *
 * A merged seq2seq decoder (Optimum's export: Moonshine's, with an `If` whose two branches are the
 * first step and the cached steps) ties its output projection to the token embedding: each branch
 * looks tokens up with `Gather(W, ids)` and computes the logits through `Transpose(W)`. onnxruntime
 * folds that Transpose into a constant once in each branch, so a session holds the weight three
 * times: Moonshine tiny's 9 MB int8 embedding cost 27 MB in every decoder session (measured: the
 * decoder's session took 51.7 MB with the folding, 33.8 MB without it; without constant folding
 * at all a decode ran 18 % slower).
 *
 * The rewrite stores W transposed (Wᵀ, its only copy), reads it directly where the Transposes
 * were, and looks tokens up as `Transpose(Gather(Wᵀ, ids, axis = 1))`: the same values
 * (transposition and gathering move elements, they compute nothing), with a transpose of the
 * looked-up rows ([d, …ids] → [ids…, d]) instead of the whole matrix. A weight qualifies when it is
 * a 2-D initializer of the main graph in raw data, read only as input 0 of Transposes that swap
 * its axes (at least one) and of Gathers along axis 0 whose index rank the file declares, and no
 * subgraph declares a value of its name. Everything else is written back byte for byte; weights
 * other than the transposed ones are slices of the input, not copies.
 */
import { AttributeField, AttributeType, GraphField, ModelField, NodeField, TensorField } from "./format.ts";
import { type GraphAttribute, type GraphNode, Pieces, readNode } from "./graph.ts";
import { bytesSource, type ProtoField, ProtoReader } from "./protobuf-reader.ts";
import { ProtoWriter } from "./protobuf-writer.ts";

/** GraphProto, AttributeProto and TensorProto fields used here besides those format.ts names (onnx.proto). */
const VALUE_INFO = 13;
const ATTRIBUTE_GRAPH = 6;
const ATTRIBUTE_GRAPHS = 11;
const TENSOR_DATA_LOCATION = 14;

/** The outcome of {@link shareTransposedWeights}: the rewritten model, or why there is none. */
export type TiedTransposeResult =
  | {
      /** The rewritten file as pieces to concatenate, mostly slices of the input. */
      readonly pieces: readonly Uint8Array[];
      /** The weights now stored transposed. */
      readonly weights: readonly string[];
    }
  | { readonly pieces?: undefined; readonly reason: string };

interface NodeEntry {
  readonly field: ProtoField;
  readonly node: GraphNode;
  /** Graph-valued attributes and their graphs. */
  readonly subgraphs: ReadonlyMap<GraphAttribute, GraphView>;
}

interface GraphView {
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

/** Name and rank (when declared) of a ValueInfoProto. */
function valueInfo(reader: ProtoReader): { name: string; rank: number | undefined } {
  let name = "";
  let rank: number | undefined;
  for (const f of reader.fields()) {
    if (f.field === 1) name = reader.string(f);
    else if (f.field === 2) {
      const type = reader.nested(f);
      for (const t of type.fields()) {
        if (t.field !== 1) continue; // tensor_type
        const tensorType = type.nested(t);
        for (const s of tensorType.fields()) {
          if (s.field !== 2) continue; // shape
          const shape = tensorType.nested(s);
          rank = 0;
          for (const d of shape.fields()) if (d.field === 1) rank++;
        }
      }
    }
  }
  return { name, rank };
}

function tensorName(reader: ProtoReader): string {
  for (const f of reader.fields()) if (f.field === TensorField.NAME) return reader.string(f);
  return "";
}

/** Reads a GraphProto and, recursively, the graphs of its nodes' attributes; `ranks` collects declared ranks. */
function readGraph(reader: ProtoReader, ranks: Map<string, number>): GraphView {
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
        const fields = attribute.source === undefined ? [] : reader.nested(attribute.source).fields();
        for (const g of fields)
          if (g.field === ATTRIBUTE_GRAPHS) throw new UnsupportedGraph(`node ${node.opType} has a list of subgraphs`);
      }
      for (const output of node.outputs) declared.add(output);
      nodes.set(f, { field: f, node, subgraphs });
    } else if (f.field === GraphField.INITIALIZER) {
      const name = tensorName(reader.nested(f));
      declared.add(name);
      initializers.set(name, f);
    } else if (f.field === GraphField.INPUT || f.field === GraphField.OUTPUT || f.field === VALUE_INFO) {
      const { name, rank } = valueInfo(reader.nested(f));
      if (rank !== undefined && !ranks.has(name)) ranks.set(name, rank);
      if (f.field === GraphField.INPUT) declared.add(name);
      if (f.field === GraphField.OUTPUT) outputs.add(name);
      if (f.field === VALUE_INFO) valueInfos.set(f, name);
    }
  }
  return { reader, fields, nodes, declared, outputs, initializers, valueInfos };
}

class UnsupportedGraph extends Error {}

/** Every node of `graph` and its subgraphs, with the graph it is in. */
function* allNodes(graph: GraphView): Generator<{ graph: GraphView; entry: NodeEntry }> {
  for (const entry of graph.nodes.values()) {
    yield { graph, entry };
    for (const sub of entry.subgraphs.values()) yield* allNodes(sub);
  }
}

function* subgraphsOf(graph: GraphView): Generator<GraphView> {
  for (const entry of graph.nodes.values()) {
    for (const sub of entry.subgraphs.values()) {
      yield sub;
      yield* subgraphsOf(sub);
    }
  }
}

function intsOf(node: GraphNode, name: string): readonly number[] | undefined {
  return node.attributes.find((a) => a.name === name)?.ints;
}

/** The 2-D raw-data tensor `f`: its dims, raw data and element size, or undefined when it is not one. */
function rawMatrix(
  reader: ProtoReader,
  f: ProtoField,
): { dims: [number, number]; raw: ProtoField; size: number } | undefined {
  const tensor = reader.nested(f);
  const dims: number[] = [];
  let raw: ProtoField | undefined;
  for (const g of tensor.fields()) {
    if (g.field === TensorField.DIMS) {
      if (g.wireType === 0) dims.push(g.varint);
      else {
        // Packed: varints back to back.
        let value = 0;
        let scale = 1;
        for (const b of tensor.source.read(g.start, g.end - g.start)) {
          value += (b & 0x7f) * scale;
          scale *= 0x80;
          if (b >= 0x80) continue;
          dims.push(value);
          value = 0;
          scale = 1;
        }
      }
    } else if (g.field === TensorField.RAW_DATA) raw = g;
    else if (g.field === TENSOR_DATA_LOCATION && tensor.int(g) === 1) return undefined; // external data
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

/** What the rewrite does to one graph. */
interface Plan {
  /** Transpose nodes dropped, by field, with the weight their output now names. */
  readonly dropped: Map<ProtoField, { output: string; weight: string }>;
  /** Gathers that read a weight, by field, with their index rank. */
  readonly gathers: Map<ProtoField, number>;
}

/**
 * The model `bytes` with each qualifying weight (see the file comment) stored transposed once, or
 * why nothing was rewritten.
 */
export function shareTransposedWeights(bytes: Uint8Array): TiedTransposeResult {
  const model = new ProtoReader(bytesSource(bytes));
  const modelFields = [...model.fields()];
  const graphField = modelFields.find((f) => f.field === ModelField.GRAPH);
  if (graphField === undefined) return { reason: "the model has no graph" };
  const ranks = new Map<string, number>();
  let main: GraphView;
  try {
    main = readGraph(model.nested(graphField), ranks);
  } catch (error) {
    if (error instanceof UnsupportedGraph) return { reason: error.message };
    throw error;
  }
  const shadowed = new Set<string>();
  for (const sub of subgraphsOf(main)) for (const name of sub.declared) shadowed.add(name);
  // Every read of each main-graph initializer.
  const reads = new Map<string, { graph: GraphView; entry: NodeEntry; input: number }[]>();
  for (const { graph, entry } of allNodes(main)) {
    entry.node.inputs.forEach((name, input) => {
      if (!main.initializers.has(name)) return;
      const list = reads.get(name) ?? [];
      list.push({ graph, entry, input });
      reads.set(name, list);
    });
  }
  const plans = new Map<GraphView, Plan>();
  const planOf = (graph: GraphView) => {
    let plan = plans.get(graph);
    if (plan === undefined) plans.set(graph, (plan = { dropped: new Map(), gathers: new Map() }));
    return plan;
  };
  const weights = new Map<string, ReturnType<typeof rawMatrix> & object>();
  for (const [name, list] of reads) {
    if (shadowed.has(name) || main.outputs.has(name)) continue;
    const matrix = rawMatrix(main.reader, main.initializers.get(name)!);
    if (matrix === undefined) continue;
    const transposes = list.filter(({ entry }) => entry.node.opType === "Transpose");
    const qualifies =
      transposes.length > 0 &&
      list.every(({ graph, entry: { node }, input }) => {
        if (input !== 0 || node.domain !== "") return false;
        if (node.opType === "Transpose") {
          const perm = intsOf(node, "perm");
          return (perm === undefined || (perm[0] === 1 && perm[1] === 0)) && !graph.outputs.has(node.outputs[0]!);
        }
        if (node.opType === "Gather") {
          const axis = intsOf(node, "axis")?.[0] ?? 0;
          return (axis === 0 || axis === -2) && ranks.has(node.inputs[1]!) && node.outputs.length === 1;
        }
        return false;
      });
    if (!qualifies) continue;
    weights.set(name, matrix);
    for (const { graph, entry } of list) {
      const plan = planOf(graph);
      if (entry.node.opType === "Transpose")
        plan.dropped.set(entry.field, { output: entry.node.outputs[0]!, weight: name });
      else plan.gathers.set(entry.field, ranks.get(entry.node.inputs[1]!)!);
    }
  }
  if (weights.size === 0) return { reason: "no weight is read both as written and transposed" };
  const names = new Set([...main.declared, ...shadowed]);
  for (const plan of plans.values())
    for (const field of plan.gathers.keys()) {
      const gathered = gatheredName(findNode(main, field)!);
      if (names.has(gathered)) return { reason: `the graph already has a value named ${gathered}` };
    }
  const graph = encodeGraph(bytes, main, new Map(), plans, weights);
  const out = new Pieces();
  for (const f of modelFields) {
    if (f.field === ModelField.GRAPH) out.nested(ModelField.GRAPH, graph);
    else out.copy(bytes, f);
  }
  return { pieces: out.list, weights: [...weights.keys()] };
}

/** `graph` encoded with its plan applied; `renames` maps dropped Transposes' outputs of enclosing graphs. */
function encodeGraph(
  bytes: Uint8Array,
  graph: GraphView,
  inherited: ReadonlyMap<string, string>,
  plans: ReadonlyMap<GraphView, Plan>,
  weights: ReadonlyMap<string, { dims: [number, number]; raw: ProtoField; size: number }>,
): Pieces {
  const plan = plans.get(graph);
  const renames = new Map(inherited);
  for (const { output, weight } of plan?.dropped.values() ?? []) renames.set(output, weight);
  const removed = new Set([...(plan?.dropped.values() ?? [])].map((d) => d.output));
  const body = new Pieces();
  for (const f of graph.fields) {
    if (f.field === GraphField.NODE) {
      const entry = graph.nodes.get(f)!;
      if (plan?.dropped.has(f)) continue;
      const rank = plan?.gathers.get(f);
      const node = { ...entry.node, inputs: entry.node.inputs.map((name) => renames.get(name) ?? name) };
      if (rank !== undefined) {
        // Gather(Wᵀ, ids, axis 1): [d, …ids]; then the ids' axes first, d last, as Gather(W, ids) gave.
        const gathered = gatheredName(node);
        const attributes = node.attributes.filter((a) => a.name !== "axis");
        attributes.push({ name: "axis", type: AttributeType.INT, ints: [1] });
        body.nested(GraphField.NODE, encodeNode(bytes, { ...node, outputs: [gathered], attributes }, new Map()));
        const perm = [...Array.from({ length: rank }, (_, i) => i + 1), 0];
        const transpose: GraphNode = {
          inputs: [gathered],
          outputs: node.outputs,
          name: node.name === "" ? "" : `${node.name}_tied_transpose`,
          opType: "Transpose",
          domain: "",
          attributes: [{ name: "perm", type: AttributeType.INTS, ints: perm }],
          otherFields: [],
          changed: true,
        };
        body.nested(GraphField.NODE, encodeNode(bytes, transpose, new Map()));
        continue;
      }
      const renamed = node.inputs.some((name, i) => name !== entry.node.inputs[i]);
      if (!renamed && entry.subgraphs.size === 0) {
        body.copy(bytes, f);
        continue;
      }
      const subgraphs = new Map<GraphAttribute, Pieces>();
      for (const [attribute, sub] of entry.subgraphs)
        subgraphs.set(attribute, encodeGraph(bytes, sub, renames, plans, weights));
      body.nested(GraphField.NODE, encodeNode(bytes, node, subgraphs));
    } else if (f.field === VALUE_INFO && removed.has(graph.valueInfos.get(f)!)) {
      continue;
    } else {
      const weight = f.field === GraphField.INITIALIZER ? weightAt(graph, f, weights) : undefined;
      if (weight === undefined) body.copy(bytes, f);
      else body.nested(GraphField.INITIALIZER, transposedTensor(bytes, graph.reader, f, weight));
    }
  }
  return body;
}

/** The new value a rewritten Gather writes before its Transpose. */
function gatheredName(node: GraphNode): string {
  return `${node.outputs[0]!}_tied_transposed`;
}

function findNode(graph: GraphView, field: ProtoField): GraphNode | undefined {
  for (const { entry } of allNodes(graph)) if (entry.field === field) return entry.node;
  return undefined;
}

function weightAt(
  graph: GraphView,
  f: ProtoField,
  weights: ReadonlyMap<string, { dims: [number, number]; raw: ProtoField; size: number }>,
): { dims: [number, number]; raw: ProtoField; size: number } | undefined {
  for (const [name, field] of graph.initializers) if (field === f) return weights.get(name);
  return undefined;
}

/** The TensorProto `f` with dims swapped and its raw data transposed; other fields as they were. */
function transposedTensor(
  bytes: Uint8Array,
  reader: ProtoReader,
  f: ProtoField,
  matrix: { dims: [number, number]; raw: ProtoField; size: number },
): Pieces {
  const [rows, cols] = matrix.dims;
  const body = new Pieces();
  body.add(new ProtoWriter().packedVarints(TensorField.DIMS, [cols, rows]).finish());
  for (const g of reader.nested(f).fields())
    if (g.field !== TensorField.DIMS && g.field !== TensorField.RAW_DATA) body.copy(bytes, g);
  const raw = transposeMatrix(bytes.subarray(matrix.raw.start, matrix.raw.end), rows, cols, matrix.size);
  body.add(new ProtoWriter().tag(TensorField.RAW_DATA, 2).rawVarint(raw.length).finish());
  body.add(raw);
  return body;
}

/** A NodeProto: `node`'s fields, attributes copied unless new, graph attributes from `subgraphs`. */
function encodeNode(bytes: Uint8Array, node: GraphNode, subgraphs: ReadonlyMap<GraphAttribute, Pieces>): Pieces {
  const w = new ProtoWriter();
  for (const input of node.inputs) w.string(NodeField.INPUT, input);
  for (const output of node.outputs) w.string(NodeField.OUTPUT, output);
  if (node.name !== "") w.string(NodeField.NAME, node.name);
  w.string(NodeField.OP_TYPE, node.opType);
  if (node.domain !== "") w.string(NodeField.DOMAIN, node.domain);
  const body = new Pieces();
  body.add(w.finish());
  for (const attribute of node.attributes) {
    const sub = subgraphs.get(attribute);
    if (sub !== undefined && attribute.source !== undefined) {
      const fields = new Pieces();
      const reader = new ProtoReader(bytesSource(bytes), attribute.source.start, attribute.source.end);
      for (const g of reader.fields()) {
        if (g.field === ATTRIBUTE_GRAPH) fields.nested(ATTRIBUTE_GRAPH, sub);
        else fields.copy(bytes, g);
      }
      body.nested(NodeField.ATTRIBUTE, fields);
    } else if (attribute.source !== undefined) body.copy(bytes, attribute.source);
    else {
      body.add(
        new ProtoWriter()
          .message(NodeField.ATTRIBUTE, (a) => {
            a.string(AttributeField.NAME, attribute.name);
            if (attribute.type === AttributeType.INT) a.varint(AttributeField.I, attribute.ints[0] ?? 0);
            else for (const v of attribute.ints) a.varint(AttributeField.INTS, v);
            a.varint(AttributeField.TYPE, attribute.type);
          })
          .finish(),
      );
    }
  }
  for (const f of node.otherFields) body.copy(bytes, f);
  return body;
}
