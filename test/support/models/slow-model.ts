/**
 * A model that is slow on purpose, for queue, 503 and 504 tests: `x` float32 [1, 4] → `y`
 * float32 [1, 4] with y = x exactly, after `repeats` dense `matSize`×`matSize` MatMuls.
 *
 * x is tiled into a matSize×matSize matrix and multiplied by a permutation matrix that shifts
 * columns by 4; rows repeat every 4 columns, so the product never changes and y is exact, yet
 * the CPU does the full 2·matSize³ flops per MatMul (no optimiser removes a permutation). Loop
 * free, so the cost is fixed by the graph.
 */
import * as ort from "onnxruntime-node";
import { GraphBuilder, tensor } from "../onnx/builder.ts";

/** Options of {@link buildSlowModel}. */
export interface SlowModelOptions {
  /** Side of the square matrices; a multiple of 4. Default 512 (about 1.5 ms per MatMul on one modern core pair). */
  readonly matSize?: number;
  /** Number of chained MatMuls. */
  readonly repeats: number;
}

/** Builds the slow model as serialised ONNX bytes. */
export function buildSlowModel(options: SlowModelOptions): Uint8Array {
  const n = options.matSize ?? 512;
  if (!Number.isInteger(n) || n < 4 || n % 4 !== 0)
    throw new Error(`matSize must be a positive multiple of 4, got ${n}`);
  if (!Number.isInteger(options.repeats) || options.repeats < 1)
    throw new Error(`repeats must be ≥ 1, got ${options.repeats}`);
  const shift = new Float32Array(n * n);
  for (let row = 0; row < n; row++) shift[row * n + ((row + 4) % n)] = 1;

  const g = new GraphBuilder("slow_model");
  const x = g.input("x", "float32", [1, 4]);
  const weights = g.initializer("shift", tensor(shift, [n, n]));
  let m = g.op("Tile", [x, g.int64([n, n / 4])]);
  for (let i = 0; i < options.repeats; i++) m = g.op("MatMul", [m, weights]);
  const y = g.op("Slice", [m, g.int64([0, 0]), g.int64([1, 4])]);
  g.output(y, "y", "float32", [1, 4]);
  return g.toModel({ producerName: "sawt-test-slow-model" });
}

/** A slow model sized for a target run time, with what one run measured. */
export interface CalibratedSlowModel {
  readonly bytes: Uint8Array;
  readonly repeats: number;
  readonly matSize: number;
  /** Median of three timed runs of the returned model. */
  readonly measuredMs: number;
}

/**
 * Builds a slow model whose CPU run takes roughly `targetMs` on this machine: times a short
 * chain, sizes `repeats` from it, then corrects once from a measurement of the sized model (per
 * step cost is not quite linear in the chain length). Costs about a dozen runs; do it once per
 * test file. Timings drift with machine load, so tests should assert orderings, never times.
 */
export async function calibrateSlowModel(targetMs: number, matSize = 512): Promise<CalibratedSlowModel> {
  const probeRepeats = 4;
  const probe = await timeRuns(buildSlowModel({ matSize, repeats: probeRepeats }));
  let repeats = Math.max(1, Math.round((targetMs * probeRepeats) / Math.max(probe, 1e-3)));
  let bytes = buildSlowModel({ matSize, repeats });
  let measuredMs = await timeRuns(bytes);
  if (Math.abs(measuredMs - targetMs) > 0.15 * targetMs) {
    repeats = Math.max(1, Math.round((repeats * targetMs) / Math.max(measuredMs, 1e-3)));
    bytes = buildSlowModel({ matSize, repeats });
    measuredMs = await timeRuns(bytes);
  }
  return { bytes, repeats, matSize, measuredMs };
}

const feeds = (): Record<string, ort.Tensor> => ({ x: new ort.Tensor("float32", Float32Array.of(1, 2, 3, 4), [1, 4]) });

async function timeRuns(bytes: Uint8Array): Promise<number> {
  const session = await ort.InferenceSession.create(bytes);
  try {
    await session.run(feeds()); // warm-up: first runs allocate and pick kernels
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      await session.run(feeds());
      times.push(performance.now() - start);
    }
    return times.sort((a, b) => a - b)[1] as number;
  } finally {
    await session.release();
  }
}
