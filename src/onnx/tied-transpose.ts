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
import { AttributeType, GraphField, ModelField, TensorField } from "./format.ts";
import { encodeNode, type GraphAttribute, type GraphNode, Pieces } from "./graph.ts";
import {
  allNodes,
  type GraphView,
  intsOf,
  type NodeEntry,
  rawMatrix,
  readGraph,
  subgraphsOf,
  transposeMatrix,
  UnsupportedGraph,
} from "./nested-graph.ts";
import { bytesSource, type ProtoField, ProtoReader } from "./protobuf-reader.ts";
import { ProtoWriter } from "./protobuf-writer.ts";

/** The outcome of {@link shareTransposedWeights}: the rewritten model, or why there is none. */
export type TiedTransposeResult =
  | {
      /** The rewritten file as pieces to concatenate, mostly slices of the input. */
      readonly pieces: readonly Uint8Array[];
      /** The weights now stored transposed. */
      readonly weights: readonly string[];
    }
  | { readonly pieces?: undefined; readonly reason: string };

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
        body.nested(GraphField.NODE, encodeNode(bytes, { ...node, outputs: [gathered], attributes }));
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
        body.nested(GraphField.NODE, encodeNode(bytes, transpose));
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
    } else if (f.field === GraphField.VALUE_INFO && removed.has(graph.valueInfos.get(f)!)) {
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
