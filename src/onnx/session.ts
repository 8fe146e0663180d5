/**
 * What engines hold of an ONNX model: the {@link Session} shape that worker sessions and session
 * pools share (sessions.ts creates both). Types only, so the pool and the factory need not import
 * each other.
 */
import type { Tensor } from "onnxruntime-node";
import type { WireScan, WireValueMetadata } from "./session-protocol.ts";

/** Input/output description as onnxruntime reports it (`name`, `isTensor`, `type`, `shape`). */
export type ValueMetadata = WireValueMetadata;

/** A run's outputs (`ort.Tensor`s) and the time `session.run` itself took inside the worker, in seconds. */
export interface TimedRun {
  readonly outputs: Record<string, Tensor>;
  readonly seconds: number;
}

/** An onnxruntime session running in its own worker thread. */
export interface Session {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  readonly inputMetadata: readonly ValueMetadata[];
  readonly outputMetadata: readonly ValueMetadata[];
  /** Where it runs (CPU when CUDA was chosen but this model could not use it). */
  readonly provider: "cpu" | "cuda";
  /** Convolutions its graph runs lifted to 2-D (conv-lift.ts; a pool: those of its lanes), 0 when none. */
  readonly liftedConvolutions: number;
  /** Runs the model; outputs are `ort.Tensor`s. `fetches` limits the outputs computed. */
  run(feeds: Readonly<Record<string, Tensor>>, fetches?: readonly string[]): Promise<Record<string, Tensor>>;
  /** Like {@link run}, plus the time `session.run` itself took inside the worker (for metrics). */
  runTimed(feeds: Readonly<Record<string, Tensor>>, fetches?: readonly string[]): Promise<TimedRun>;
  /**
   * Runs the model `steps` times in one trip to its worker, carrying outputs into inputs between
   * steps (a recurrent model over a chunk of windows); see {@link ScanRequest}.
   */
  runScan(request: ScanRequest): Promise<Record<string, Tensor>>;
  /**
   * Frees the session and ends its worker once the runs in flight have finished (stopping one inside
   * onnxruntime would abort the process); runs asked for after the release began reject.
   */
  release(): Promise<void>;
}

/**
 * A scan: `steps` runs where step i feeds slice i of `step.data` (each of `step.dims`) as
 * `step.name`; `feeds` are the other inputs (initial values of carried ones); `carry` maps an
 * output to the input it becomes for the next step. The result holds each `collect` output of
 * every step, concatenated along a new leading axis, and the carried outputs of the last step.
 */
export interface ScanRequest extends Omit<WireScan, "feeds"> {
  readonly feeds: Readonly<Record<string, Tensor>>;
}
