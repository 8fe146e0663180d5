/**
 * The slice of onnxruntime that the ASR runners use: a session that runs feeds to outputs, tensor
 * constructors and argmax. (Pack headers are read before any session by src/models/header.ts.)
 */
import type { Tensor } from "onnxruntime-node";
import { loadOrt, type Ort } from "../runtime/ort.ts";
import { createSession } from "../runtime/sessions.ts";

/** What a runner needs from a session (Sawt's worker sessions from createSession). */
export interface RunnerSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  /** Runs the model; `fetches` limits the outputs computed and sent back. */
  run(feeds: Record<string, Tensor>, fetches?: readonly string[]): Promise<Record<string, Tensor>>;
  release(): Promise<void>;
}

/** An open session and where it runs. */
export interface OpenedSession {
  readonly session: RunnerSession;
  readonly provider: "cpu" | "cuda";
}

/**
 * Opens `path` through the one session factory (provider, threads, worker and fallback decided
 * there); `parallel` above 1 asks for a session pool that many runs wide (see session-pool.ts).
 */
export async function openSession(path: string, label?: string, parallel = 1): Promise<OpenedSession> {
  const created = await createSession(path, { ...(label === undefined ? {} : { label }), parallel });
  return { session: created.session, provider: created.provider };
}

let ort: Ort | undefined;

/** onnxruntime, loaded once; runners call this before building tensors. */
export async function ortModule(): Promise<Ort> {
  ort ??= await loadOrt();
  return ort;
}

function loaded(): Ort {
  if (ort === undefined) throw new Error("onnxruntime is not loaded yet (call ortModule() first)");
  return ort;
}

/** A float32 tensor. */
export function f32(data: Float32Array, dims: readonly number[]): Tensor {
  return new (loaded().Tensor)("float32", data, dims);
}

/** An int64 tensor from plain numbers. */
export function i64(values: readonly number[] | BigInt64Array, dims: readonly number[]): Tensor {
  const data = values instanceof BigInt64Array ? values : BigInt64Array.from(values, (v) => BigInt(v));
  return new (loaded().Tensor)("int64", data, dims);
}

/** The float data of an output tensor (throws when the model returned another type). */
export function floatData(tensor: Tensor | undefined, name: string): Float32Array {
  if (tensor === undefined) throw new Error(`model returned no ${name}`);
  if (!(tensor.data instanceof Float32Array)) throw new Error(`${name} is ${tensor.type}, expected float32`);
  return tensor.data;
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
