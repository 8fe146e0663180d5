/**
 * The slow model on disk, sized on this machine and timed the way the server runs it (through
 * the session factory, in a worker, with the server's thread count), so tests can derive queue
 * timeouts from the measured run time instead of trusting a fixed number on a loaded machine.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chooseDevice } from "../../src/onnx/devices.ts";
import { createSession, useDevice, warmUp } from "../../src/onnx/sessions.ts";
import { buildSlowModel } from "./models/slow-model.ts";
import { writeModel } from "./onnx/builder.ts";
import { slowFeeds } from "./slow-engine.ts";

/**
 * Threads per session for runtime tests: one. On a small shared machine a single-threaded run
 * keeps its time when a neighbour process takes the other core; a multi-threaded one does not.
 * Tests start the server with `SAWT_RUNTIME_INTRA_OP_THREADS` set to this.
 */
export const TEST_THREADS = 1;

/** A calibrated slow model file. */
export interface SlowModelFile {
  readonly path: string;
  /** Median run time measured through a worker session, ms. */
  readonly runMs: number;
  readonly repeats: number;
}

async function medianRunMs(model: string | Uint8Array, runs = 3): Promise<number> {
  const { session } = await createSession(model, { label: "calibration" });
  try {
    await warmUp(session, await slowFeeds());
    const times: number[] = [];
    for (let i = 0; i < runs; i++) times.push((await session.runTimed(await slowFeeds())).seconds * 1000);
    return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
  } finally {
    await session.release();
  }
}

let cached: Promise<SlowModelFile> | undefined;

/** Writes (once per process) a slow model taking about `targetMs` per run here; returns its file. */
export function slowModelFile(targetMs = 700): Promise<SlowModelFile> {
  cached ??= (async () => {
    // Same device decision as the servers of these tests.
    useDevice(await chooseDevice("cpu", TEST_THREADS));
    const probeRepeats = 40;
    const perStep = (await medianRunMs(buildSlowModel({ repeats: probeRepeats }))) / probeRepeats;
    let repeats = Math.max(1, Math.round(targetMs / Math.max(perStep, 1e-3)));
    // Cost per step is not quite linear in the chain length: correct once from the sized model.
    repeats = Math.max(
      1,
      Math.round((repeats * targetMs) / Math.max(await medianRunMs(buildSlowModel({ repeats }), 1), 1e-3)),
    );
    const dir = mkdtempSync(join(tmpdir(), "sawt-slow-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    const path = await writeModel(join(dir, "slow.onnx"), buildSlowModel({ repeats }));
    return { path, runMs: await medianRunMs(path), repeats };
  })();
  return cached;
}
