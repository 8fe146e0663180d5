/**
 * Messages between the main thread and a session worker (see sessions.ts for why sessions run
 * in workers). Tensors cross as plain `{ type, data, dims }`; output buffers are transferred.
 */

/** A tensor as it crosses the thread boundary. */
export interface WireTensor {
  readonly type: string;
  readonly data: ArrayBufferView | readonly string[];
  readonly dims: readonly number[];
}

/** Input/output description, as onnxruntime reports it. */
export type WireValueMetadata = Readonly<Record<string, unknown>> & { readonly name: string };

/**
 * A run of `steps` model calls in one message (see Session.runScan): step i feeds the i-th slice
 * of `step.data` as `step.name` (each slice has `step.dims`), the other `feeds` stay, and after
 * each call every output named in `carry` is fed back as the input it maps to. The reply holds
 * the `collect` outputs of all steps concatenated (leading dimension `steps`) and the carried
 * outputs of the last step.
 */
export interface WireScan {
  readonly step: { readonly name: string; readonly data: Float32Array; readonly dims: readonly number[] };
  readonly steps: number;
  readonly feeds: Readonly<Record<string, WireTensor>>;
  readonly carry: Readonly<Record<string, string>>;
  readonly collect: readonly string[];
}

/** A run over tensors kept in the worker (see HeldRun in session.ts). */
export interface WireHeldRun {
  readonly feeds: Readonly<Record<string, WireTensor>>;
  readonly fetch: readonly string[];
  readonly keep: Readonly<Record<string, string>>;
}

/** Main → worker. */
export type ToWorker =
  | {
      readonly op: "open";
      /** Materialised libonnxruntime to make resident first (compiled binary), else undefined. */
      readonly libraryPath: string | undefined;
      readonly model: string | Uint8Array;
      readonly provider: "cpu" | "cuda";
      readonly intraOpThreads: number;
      /** Lift 1-D convolution chains to 2-D (conv-lift.ts) on a CPU session (sessions.ts decides when). */
      readonly liftConv1d: boolean;
      /** Store a weight read both as written and transposed once (tied-transpose.ts). */
      readonly shareTransposedWeights: boolean;
      /** Use onnxruntime's CPU memory arena (false where native-heap.ts tuned the C heap instead). */
      readonly arena: boolean;
    }
  | {
      readonly op: "run";
      readonly id: number;
      readonly feeds: Readonly<Record<string, WireTensor>>;
      readonly fetches?: readonly string[];
    }
  | ({ readonly op: "scan"; readonly id: number } & WireScan)
  | ({ readonly op: "held-run"; readonly id: number; readonly hold: number } & WireHeldRun)
  /** Frees the tensors kept for `hold` (no reply). */
  | { readonly op: "unhold"; readonly hold: number }
  /** Nudges this thread's malloc arena to trim (native-heap.ts); answered with `trimmed`. */
  | { readonly op: "trim" }
  | { readonly op: "release" };

/** Worker → main. */
export type FromWorker =
  | {
      readonly op: "opened";
      readonly provider: "cpu" | "cuda";
      /** Set when CUDA was asked for but the session had to use CPU. */
      readonly fallback?: string;
      /**
       * Set when a lift was asked for: what it lifted, or why the original graph runs (`failed`:
       * the rewrite or onnxruntime refused a graph that had chains to lift).
       */
      readonly lift?: { readonly convolutions: number } | { readonly skipped: string; readonly failed: boolean };
      readonly inputNames: readonly string[];
      readonly outputNames: readonly string[];
      readonly inputMetadata: readonly WireValueMetadata[];
      readonly outputMetadata: readonly WireValueMetadata[];
    }
  | { readonly op: "open-failed"; readonly message: string }
  | {
      readonly op: "result";
      readonly id: number;
      readonly outputs: Readonly<Record<string, WireTensor>>;
      readonly seconds: number;
    }
  | { readonly op: "run-failed"; readonly id: number; readonly message: string }
  | { readonly op: "trimmed" }
  | { readonly op: "released" };
