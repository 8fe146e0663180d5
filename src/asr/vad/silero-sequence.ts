/**
 * Silero VAD v5 rebuilt to score a whole chunk of windows in one onnxruntime run. The published
 * graph scores one 576-sample window per run (the 16 kHz branch of an `If` on `sr`): an STFT and
 * four convolutions that see only that window, then one step of an ONNX LSTM carrying the state,
 * a 1×1 convolution and a sigmoid. Only the LSTM links windows, and ONNX's LSTM takes a sequence,
 * so the same nodes, weights and LSTM attributes, rewired, score N windows at once: the front end
 * runs with the windows as its batch, the LSTM over them as its sequence from the given state, the
 * head per window. One run instead of N saves onnxruntime's per-run cost, which for a model this
 * small was about half its time (0.12–0.14 ms a window run by run, 0.054 ms batched).
 *
 * Built from the file's own nodes, found by their structure: the LSTM inside the branch that is
 * taken when a state is given, the last ReLU of the encoder before the decoder's first `If`, the
 * head's convolution after the LSTM. Anything else (another Silero version) is refused with the
 * reason, and the caller scores window by window as before.
 *
 * In: `input` [N, 576] (each window with the previous window's last 64 samples), `state`
 * [2, 1, 128]. Out: `output` [N, 1] (speech probability per window), `stateN` [2, 1, 128].
 */
import { AttributeField, AttributeType, GraphField, ModelField, NodeField, TensorField } from "../../onnx/format.ts";
import { copyField, type GraphNode, int64Tensor, readNode } from "../../onnx/graph.ts";
import { bytesSource, type ProtoField, ProtoReader } from "../../onnx/protobuf-reader.ts";
import { ProtoWriter } from "../../onnx/protobuf-writer.ts";

/** One (sub)graph of the file: its nodes, and its initializers, inputs and outputs by name. */
interface SourceGraph {
  readonly nodes: readonly GraphNode[];
  /** Initializers by name (TensorProto fields of the graph). */
  readonly initializers: ReadonlyMap<string, ProtoField>;
  readonly inputs: ReadonlyMap<string, ProtoField>;
  readonly outputs: ReadonlyMap<string, ProtoField>;
}

function readGraph(graph: ProtoReader): SourceGraph {
  const nodes: GraphNode[] = [];
  const initializers = new Map<string, ProtoField>();
  const inputs = new Map<string, ProtoField>();
  const outputs = new Map<string, ProtoField>();
  const nameOf = (message: ProtoReader, field: number) => {
    for (const f of message.fields()) if (f.field === field) return message.string(f);
    return "";
  };
  for (const f of graph.fields()) {
    if (f.field === GraphField.NODE) nodes.push(readNode(graph, f));
    else if (f.field === GraphField.INITIALIZER) initializers.set(nameOf(graph.nested(f), TensorField.NAME), f);
    else if (f.field === GraphField.INPUT) inputs.set(nameOf(graph.nested(f), 1), f);
    else if (f.field === GraphField.OUTPUT) outputs.set(nameOf(graph.nested(f), 1), f);
  }
  return { nodes, initializers, inputs, outputs };
}

/** The `name` branch of an `If` node, read. */
function branch(node: GraphNode, name: "then_branch" | "else_branch", bytes: Uint8Array): SourceGraph | undefined {
  const graph = node.attributes.find((a) => a.name === name)?.graph;
  return graph && readGraph(new ProtoReader(bytesSource(bytes), graph.start, graph.end));
}

/** Nodes of `scopes` that `names` depend on, in an order that runs (producers first), and the initializers met. */
function dependencies(names: readonly string[], scopes: readonly SourceGraph[]) {
  const producer = new Map<string, { node: GraphNode; order: number }>();
  let order = 0;
  for (const scope of scopes)
    for (const node of scope.nodes) for (const o of node.outputs) producer.set(o, { node, order: order++ });
  const initializers = new Map<string, ProtoField>();
  const needed = new Map<GraphNode, number>();
  const stack = [...names];
  while (stack.length > 0) {
    const name = stack.pop()!;
    const found = producer.get(name);
    if (found) {
      if (needed.has(found.node)) continue;
      needed.set(found.node, found.order);
      stack.push(...found.node.inputs.filter((i) => i !== ""));
      continue;
    }
    for (const scope of scopes) {
      const tensor = scope.initializers.get(name);
      if (tensor) initializers.set(name, tensor);
    }
  }
  const nodes = [...needed].sort((a, b) => a[1] - b[1]).map(([node]) => node);
  return { nodes, initializers };
}

/** The rebuilt graph's parts, as encoded GraphProto fields. */
class Builder {
  readonly nodes: Uint8Array[] = [];
  readonly initializers: Uint8Array[] = [];
  private count = 0;

  constructor(private readonly bytes: Uint8Array) {}

  /** Field `f` of the source as it was. */
  copy(f: ProtoField): Uint8Array {
    return copyField(this.bytes, f);
  }

  /** Adds a node; `attributes` are the source's AttributeProto fields (copied) or encoded ones. */
  node(
    opType: string,
    inputs: readonly string[],
    outputs: readonly string[],
    attributes: readonly (ProtoField | Uint8Array)[] = [],
  ): void {
    const w = new ProtoWriter();
    for (const i of inputs) w.string(NodeField.INPUT, i);
    for (const o of outputs) w.string(NodeField.OUTPUT, o);
    w.string(NodeField.NAME, `silero_sequence/${opType}_${this.count++}`);
    w.string(NodeField.OP_TYPE, opType);
    for (const a of attributes) w.raw(a instanceof Uint8Array ? a : this.copy(a));
    this.nodes.push(new ProtoWriter().bytes(GraphField.NODE, w.finish()).finish());
  }

  /** Adds an int64 initializer and returns its name. */
  int64(name: string, values: readonly number[]): string {
    this.initializers.push(new ProtoWriter().bytes(GraphField.INITIALIZER, int64Tensor(name, values)).finish());
    return name;
  }
}

/** The rebuilt model, or why the file is not the Silero v5 graph this rebuild knows. */
export type SileroSequenceResult =
  | { readonly bytes: Uint8Array }
  | { readonly bytes?: undefined; readonly reason: string };

/** Rebuilds the published Silero VAD v5 graph in `bytes` to score N windows per run (see the file's comment). */
export function sileroSequenceModel(bytes: Uint8Array): SileroSequenceResult {
  const model = new ProtoReader(bytesSource(bytes));
  const modelFields = [...model.fields()];
  const graphField = modelFields.find((f) => f.field === ModelField.GRAPH);
  if (graphField === undefined) return { reason: "the model has no graph" };
  const main = readGraph(model.nested(graphField));
  // v5 branches on Equal(sr, 16000): `then` is 16 kHz. A file that branches otherwise rebuilds the
  // wrong branch, and the load-time check against the published graph (silero.ts) refuses it.
  const rateIf = main.nodes.find((n) => n.opType === "If");
  const rate16k = rateIf && branch(rateIf, "then_branch", bytes);
  if (!rate16k || !main.inputs.has("input") || !main.inputs.has("state"))
    return { reason: "no If on the sample rate with input and state" };
  // The decoder's `If` whose `then` (a state was given) holds the LSTM.
  let cell: SourceGraph | undefined;
  let stateIf: GraphNode | undefined;
  for (const node of rate16k.nodes) {
    const then = node.opType === "If" ? branch(node, "then_branch", bytes) : undefined;
    if (!then?.nodes.some((n) => n.opType === "LSTM")) continue;
    [cell, stateIf] = [then, node];
    break;
  }
  if (!cell || !stateIf) return { reason: "no LSTM in the 16 kHz branch" };
  const lstm = cell.nodes.find((n) => n.opType === "LSTM")!;
  const firstIf = rate16k.nodes.findIndex((n) => n.opType === "If");
  const encoder = rate16k.nodes
    .slice(0, firstIf)
    .filter((n) => n.opType === "Relu")
    .at(-1);
  const head = rate16k.nodes.slice(rate16k.nodes.indexOf(stateIf)).find((n) => n.opType === "Conv");
  if (!encoder || !head || lstm.inputs.length < 4) return { reason: "not the encoder, LSTM and head of Silero v5" };

  const b = new Builder(bytes);
  const scopes = [rate16k, cell];
  // The front end and the LSTM's weights as the file computes them, then the head's weights.
  const front = dependencies([encoder.outputs[0]!], scopes);
  const weights = dependencies(lstm.inputs.slice(1, 4), scopes);
  const headWeights = dependencies(head.inputs.slice(1), scopes);
  const copied = new Set<GraphNode>();
  const initializers = new Map<string, ProtoField>();
  for (const part of [front, weights, headWeights]) {
    for (const node of part.nodes) {
      if (copied.has(node)) continue;
      b.nodes.push(b.copy(node.source!));
      copied.add(node);
    }
    for (const [name, tensor] of part.initializers) initializers.set(name, tensor);
  }
  for (const tensor of initializers.values()) b.initializers.push(b.copy(tensor));

  // The encoder's [N, 128, 1] as a sequence [N, 1, 128] from the state [2, 1, 128] = (h, c).
  const axis = (n: number) => b.int64(`silero_sequence/axis_${n}`, [n]);
  const [a0, a1, a2] = [axis(0), axis(1), axis(2)];
  b.node("Squeeze", [encoder.outputs[0]!, a2], ["silero_sequence/frames"]);
  b.node("Unsqueeze", ["silero_sequence/frames", a1], ["silero_sequence/x"]);
  b.node("Gather", ["state", a0], ["silero_sequence/h0"]);
  b.node("Gather", ["state", a1], ["silero_sequence/c0"]);
  const [w, r, bias] = lstm.inputs.slice(1, 4) as [string, string, string];
  b.node(
    "LSTM",
    ["silero_sequence/x", w, r, bias, "", "silero_sequence/h0", "silero_sequence/c0"],
    ["silero_sequence/y", "silero_sequence/yh", "silero_sequence/yc"],
    lstm.attributes.map((a) => a.source!),
  );
  // Each step's h [N, 1, 1, 128] → [N, 128, 1] → ReLU → the head's 1×1 convolution → sigmoid → [N, 1].
  b.node(
    "Reshape",
    ["silero_sequence/y", b.int64("silero_sequence/hidden_shape", [-1, 128, 1])],
    ["silero_sequence/h"],
  );
  b.node("Relu", ["silero_sequence/h"], ["silero_sequence/relu"]);
  b.node(
    "Conv",
    ["silero_sequence/relu", ...head.inputs.slice(1)],
    ["silero_sequence/logit"],
    head.attributes.map((a) => a.source!),
  );
  b.node("Sigmoid", ["silero_sequence/logit"], ["silero_sequence/probability"]);
  b.node("Reshape", ["silero_sequence/probability", b.int64("silero_sequence/output_shape", [-1, 1])], ["output"]);
  const axis0 = new ProtoWriter()
    .message(NodeField.ATTRIBUTE, (a) =>
      a.string(AttributeField.NAME, "axis").varint(AttributeField.I, 0).varint(AttributeField.TYPE, AttributeType.INT),
    )
    .finish();
  b.node("Concat", ["silero_sequence/yh", "silero_sequence/yc"], ["stateN"], [axis0]);

  const graph = new ProtoWriter();
  for (const node of b.nodes) graph.raw(node);
  graph.string(GraphField.NAME, "silero_vad_sequence");
  for (const tensor of b.initializers) graph.raw(tensor);
  graph.raw(b.copy(main.inputs.get("input")!)).raw(b.copy(main.inputs.get("state")!));
  for (const name of ["output", "stateN"]) {
    const out = main.outputs.get(name);
    if (!out) return { reason: `the model has no ${name} output` };
    graph.raw(b.copy(out));
  }
  const out = new ProtoWriter();
  for (const f of modelFields) {
    if (f.field === ModelField.GRAPH) out.bytes(ModelField.GRAPH, graph.finish());
    else out.raw(b.copy(f));
  }
  return { bytes: out.finish() };
}
