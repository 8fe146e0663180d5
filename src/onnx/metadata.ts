/**
 * Reads what pack validation needs from an ONNX file — ModelProto.metadata_props and the graph's
 * inputs and outputs — without building the model in memory.
 *
 * Why not ask onnxruntime: onnxruntime-node 1.30 exposes a session's input/output names and
 * types, but not the model's custom metadata map (sherpa-onnx packs keep `model_type`,
 * `sample_rate`, `n_mels`, `sot`, … there). So packs are read here, before any session exists.
 * Node bodies and initializer payloads are skipped by their length prefixes: reading a 300 MB
 * model touches a few kilobytes of headers.
 */
import {
  DimField,
  elemTypeName,
  EntryField,
  GraphField,
  ModelField,
  OpsetField,
  ShapeField,
  TensorField,
  TensorTypeField,
  TypeField,
  ValueInfoField,
  type OnnxElemType,
} from "./format.ts";
import { bytesSource, fileSource, ProtoFormatError, ProtoReader, type ByteSource } from "./protobuf-reader.ts";

/** A file that is not a readable ONNX model; the message says where and why. */
export class OnnxFormatError extends Error {
  override readonly name = "OnnxFormatError";
}

/** One graph input or output as declared in the file. */
export interface OnnxValueInfo {
  readonly name: string;
  /** Tensor element type; `null` for non-tensor values (sequences, maps) or an absent type. */
  readonly elemType: OnnxElemType | `type${number}` | null;
  /** Fixed sizes, symbolic names, `null` for an unnamed unknown dim; `null` when rank is unknown. */
  readonly dims: readonly (number | string | null)[] | null;
}

/** What Sawt reads from a model file without loading it. */
export interface OnnxModelInfo {
  readonly irVersion: number;
  readonly producerName: string;
  readonly opsets: readonly { readonly domain: string; readonly version: number }[];
  /** metadata_props; a repeated key keeps its last value. */
  readonly metadata: Readonly<Record<string, string>>;
  readonly graphName: string;
  /** Inputs a caller must feed, as onnxruntime lists them: inputs backed by an initializer are left out. */
  readonly inputs: readonly OnnxValueInfo[];
  readonly outputs: readonly OnnxValueInfo[];
}

/** Reads model info from serialised ModelProto bytes. Throws {@link OnnxFormatError}. */
export function readOnnxModelInfo(bytes: Uint8Array): OnnxModelInfo {
  return readOnnxModelInfoFrom(bytesSource(bytes));
}

/**
 * Reads model info from a file through a small read window, so multi-hundred-megabyte models are
 * never held in memory. Throws {@link OnnxFormatError} (and fs errors for a missing file).
 */
export function readOnnxModelInfoFile(path: string): OnnxModelInfo {
  const source = fileSource(path);
  try {
    return readOnnxModelInfoFrom(source, path);
  } finally {
    source.close();
  }
}

/** Just ModelProto.metadata_props of serialised model bytes. Throws {@link OnnxFormatError}. */
export function readOnnxMetadata(bytes: Uint8Array): Record<string, string> {
  return { ...readOnnxModelInfo(bytes).metadata };
}

/**
 * Reads model info from any byte source; `label` names it in error messages. Throws
 * {@link OnnxFormatError}.
 */
export function readOnnxModelInfoFrom(source: ByteSource, label = "model"): OnnxModelInfo {
  if (source.size === 0) throw new OnnxFormatError(`${label} is not an ONNX model: it is empty`);
  try {
    return readModel(new ProtoReader(source));
  } catch (err) {
    if (err instanceof ProtoFormatError || err instanceof OnnxFormatError) {
      throw new OnnxFormatError(`${label} is not a valid ONNX model: ${err.message}`, { cause: err });
    }
    throw err;
  }
}

interface MutableGraph {
  name: string;
  inputs: OnnxValueInfo[];
  outputs: OnnxValueInfo[];
  initializers: Set<string>;
}

function readModel(r: ProtoReader): OnnxModelInfo {
  let irVersion = 0;
  let producerName = "";
  let graph: MutableGraph | undefined;
  const opsets: { domain: string; version: number }[] = [];
  const metadata: Record<string, string> = Object.create(null);
  for (const f of r.fields()) {
    switch (f.field) {
      case ModelField.IR_VERSION:
        irVersion = r.int(f);
        break;
      case ModelField.PRODUCER_NAME:
        producerName = r.string(f);
        break;
      case ModelField.GRAPH:
        // Protobuf merges a repeated singular message field; do the same.
        graph = readGraph(r.nested(f), graph);
        break;
      case ModelField.OPSET_IMPORT:
        opsets.push(readOpset(r.nested(f)));
        break;
      case ModelField.METADATA_PROPS: {
        const [key, value] = readEntry(r.nested(f));
        metadata[key] = value;
        break;
      }
    }
  }
  if (graph === undefined) throw new OnnxFormatError("it has no graph (ModelProto field 7)");
  const { initializers } = graph;
  return {
    irVersion,
    producerName,
    opsets,
    metadata: { ...metadata },
    graphName: graph.name,
    inputs: graph.inputs.filter((i) => !initializers.has(i.name)),
    outputs: graph.outputs,
  };
}

function readGraph(r: ProtoReader, into?: MutableGraph): MutableGraph {
  const g = into ?? { name: "", inputs: [], outputs: [], initializers: new Set<string>() };
  for (const f of r.fields()) {
    switch (f.field) {
      case GraphField.NAME:
        g.name = r.string(f);
        break;
      case GraphField.INITIALIZER:
        g.initializers.add(readTensorName(r.nested(f)));
        break;
      case GraphField.INPUT:
        g.inputs.push(readValueInfo(r.nested(f)));
        break;
      case GraphField.OUTPUT:
        g.outputs.push(readValueInfo(r.nested(f)));
        break;
    }
  }
  return g;
}

// Only the name: dims, data and external-data entries are walked over, never decoded.
function readTensorName(r: ProtoReader): string {
  let name = "";
  for (const f of r.fields()) if (f.field === TensorField.NAME) name = r.string(f);
  return name;
}

function readOpset(r: ProtoReader): { domain: string; version: number } {
  let domain = "";
  let version = 0;
  for (const f of r.fields()) {
    if (f.field === OpsetField.DOMAIN) domain = r.string(f);
    else if (f.field === OpsetField.VERSION) version = r.int(f);
  }
  return { domain, version };
}

function readEntry(r: ProtoReader): [string, string] {
  let key = "";
  let value = "";
  for (const f of r.fields()) {
    if (f.field === EntryField.KEY) key = r.string(f);
    else if (f.field === EntryField.VALUE) value = r.string(f);
  }
  return [key, value];
}

function readValueInfo(r: ProtoReader): OnnxValueInfo {
  let name = "";
  let elemType: OnnxValueInfo["elemType"] = null;
  let dims: (number | string | null)[] | null = null;
  for (const f of r.fields()) {
    if (f.field === ValueInfoField.NAME) name = r.string(f);
    else if (f.field === ValueInfoField.TYPE) {
      const type = r.nested(f);
      for (const t of type.fields()) {
        if (t.field !== TypeField.TENSOR_TYPE) continue;
        const tensorType = type.nested(t);
        for (const tf of tensorType.fields()) {
          if (tf.field === TensorTypeField.ELEM_TYPE) elemType = elemTypeName(tensorType.int(tf));
          else if (tf.field === TensorTypeField.SHAPE) dims = readShape(tensorType.nested(tf));
        }
      }
    }
  }
  return { name, elemType, dims };
}

function readShape(r: ProtoReader): (number | string | null)[] {
  const dims: (number | string | null)[] = [];
  for (const f of r.fields()) {
    if (f.field !== ShapeField.DIM) continue;
    const dim = r.nested(f);
    let value: number | string | null = null;
    for (const d of dim.fields()) {
      if (d.field === DimField.VALUE) value = dim.int(d);
      else if (d.field === DimField.PARAM) value = dim.string(d);
    }
    dims.push(value);
  }
  return dims;
}
