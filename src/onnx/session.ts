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
   * Takes one member (a pool's: the one a run would go to now) for a sequence of runs whose
   * tensors stay in its worker between runs, a decoder's steps; see {@link HeldSession}. The
   * member counts as busy until the hold is released.
   */
  hold(): Promise<HeldSession>;
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

/**
 * One run of a {@link HeldSession}. The worker keeps a set of tensors by input name: this run's
 * `feeds` join it (replacing any of the same name), the run takes from it every input the model
 * declares, then each output named in `keep` replaces the kept input it maps to. Only `fetch`
 * comes back. So a decoder sends its encoder output once and gets its caches fed back in place:
 * neither crosses the thread boundary again.
 */
export interface HeldRun {
  readonly feeds: Readonly<Record<string, Tensor>>;
  /** Outputs returned to the caller. */
  readonly fetch: readonly string[];
  /** Output name → the input name it is kept as for the next runs. */
  readonly keep?: Readonly<Record<string, string>>;
  /**
   * Feeds whose buffers move to the worker instead of being copied; the caller must not read
   * those tensors again (large one-off inputs such as an encoder output).
   */
  readonly transfer?: readonly string[];
}

/** A session member held for a sequence of {@link HeldRun}s (from {@link Session.hold}). */
export interface HeldSession {
  /** Runs the model as {@link HeldRun} describes; runs of one hold go one after another. */
  run(request: HeldRun): Promise<Record<string, Tensor>>;
  /** Frees the tensors kept in the worker and gives the member back (once; later calls do nothing). */
  release(): void;
}
