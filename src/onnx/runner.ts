/**
 * The one way a model family runs ONNX: open a session through the one factory (sessions.ts:
 * worker thread, device, pool), build its feeds with the tensor builders here and read its outputs
 * with the typed readers. Every family (TTS voices, tashkeel, speaker encoder, recognisers, VAD,
 * dialect id) uses these, so a tensor is built and an output checked one way everywhere.
 * (Pack headers are read before any session by src/models/header.ts.)
 */
import type { Tensor } from "onnxruntime-node";
import { loadOrt, type Ort } from "./ort.ts";
import { type CreatedSession, createSession, type SessionOptions } from "./sessions.ts";

export type { CreatedSession, HeldRun, HeldSession, Session, SessionOptions } from "./sessions.ts";
export type { Tensor } from "onnxruntime-node";

/** Feeds or outputs of one run, by input/output name. */
export type Tensors = Record<string, Tensor>;

let ort: Ort | undefined;

/** onnxruntime, loaded once; {@link openSession} calls it, so builders work after any session opened. */
export async function ortModule(): Promise<Ort> {
  ort ??= await loadOrt();
  return ort;
}

/**
 * Opens `model` (a path or the bytes of a rebuilt graph) through the one session factory and
 * loads onnxruntime for the tensor builders. `label` names it in logs; `parallel` above 1 asks
 * for a session pool (session-pool.ts); `intraOpThreads` and `liftConv1d` as in createSession.
 */
export async function openSession(model: string | Uint8Array, options: SessionOptions = {}): Promise<CreatedSession> {
  await ortModule();
  return await createSession(model, options);
}

function loaded(): Ort {
  // Tensors are built synchronously on hot paths; a family always opens its session first.
  if (ort === undefined) throw new Error("onnxruntime is not loaded yet (open a session or call ortModule() first)");
  return ort;
}

/** A float32 tensor over `data` (not copied), or over plain numbers. */
export function f32(data: Float32Array | readonly number[], dims: readonly number[]): Tensor {
  const values = data instanceof Float32Array ? data : Float32Array.from(data);
  return new (loaded().Tensor)("float32", values, dims);
}

/** An int64 tensor from plain numbers (or a BigInt64Array, not copied). */
export function i64(values: readonly number[] | BigInt64Array, dims: readonly number[]): Tensor {
  const data = values instanceof BigInt64Array ? values : BigInt64Array.from(values, (v) => BigInt(v));
  return new (loaded().Tensor)("int64", data, dims);
}

/** An int32 tensor from plain numbers. */
export function i32(values: readonly number[], dims: readonly number[]): Tensor {
  return new (loaded().Tensor)("int32", Int32Array.from(values), dims);
}

/** A bool tensor of one value per entry. */
export function bool(values: readonly boolean[], dims: readonly number[]): Tensor {
  return new (loaded().Tensor)(
    "bool",
    Uint8Array.from(values, (v) => (v ? 1 : 0)),
    dims,
  );
}

/** The output `name` of a run (throws, naming the model, when the model returned none). */
export function output(outputs: Readonly<Record<string, Tensor | undefined>>, name: string, model = "model"): Tensor {
  const tensor = outputs[name];
  if (tensor === undefined) throw new Error(`${model} returned no ${name}`);
  return tensor;
}

/** The float data of an output tensor (throws when it is missing or of another type). */
export function floatData(tensor: Tensor | undefined, name: string): Float32Array {
  if (tensor === undefined) throw new Error(`model returned no ${name}`);
  if (!(tensor.data instanceof Float32Array)) throw new Error(`${name} is ${tensor.type}, expected float32`);
  return tensor.data;
}

/** The integer values of an output tensor (int64, int32 or uint8), as numbers. */
export function intValues(tensor: Tensor | undefined, name: string): number[] {
  if (tensor === undefined) throw new Error(`model returned no ${name}`);
  const { data } = tensor;
  if (data instanceof BigInt64Array || data instanceof Int32Array || data instanceof Uint8Array)
    return Array.from(data, Number);
  throw new Error(`${name} is ${tensor.type}, expected integers`);
}

/** The dims of a tensor as numbers. */
export function dimsOf(tensor: Tensor): number[] {
  return tensor.dims.map(Number);
}

/** Index of the largest value in `row[from, to)`, skipping indices for which `skip` is true. */
export function argmax(row: Float32Array, from = 0, to = row.length, skip?: (index: number) => boolean): number {
  let best = -1;
  let bestValue = Number.NEGATIVE_INFINITY;
  for (let i = from; i < to; i++) {
    const value = row[i]!;
    if (value > bestValue && !(skip?.(i - from) ?? false)) {
      bestValue = value;
      best = i - from;
    }
  }
  return best;
}

/**
 * Opens several sessions of one pack together (encoder + decoder, decoder + joiner, …); when one
 * fails the ones already open are released. The provider is CUDA only when every session runs there.
 */
export async function openSessions(
  models: readonly string[],
  options: (model: string) => SessionOptions,
): Promise<{ sessions: CreatedSession["session"][]; provider: "cpu" | "cuda" }> {
  const opened: CreatedSession[] = [];
  try {
    for (const model of models) opened.push(await openSession(model, options(model)));
  } catch (error) {
    await Promise.all(opened.map((o) => o.session.release()));
    throw error;
  }
  return {
    sessions: opened.map((o) => o.session),
    provider: opened.every((o) => o.provider === "cuda") ? "cuda" : "cpu",
  };
}

/** A session label `pack/file` (logs name no host paths), or undefined without a pack. */
export function packLabel(pack: string | undefined, path: string): string | undefined {
  return pack === undefined ? undefined : `${pack}/${path.split("/").pop()}`;
}
