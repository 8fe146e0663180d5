/**
 * Child process of session-release.test.ts: releases sessions while runs are in flight and prints
 * what each run and a later run got, as one JSON line. Run on its own because the failure it guards
 * against aborts the whole process (onnxruntime inside a terminated worker), which would take a
 * test runner down with it.
 */
import { chooseDevice } from "../../src/onnx/devices.ts";
import { loadOrt } from "../../src/onnx/ort.ts";
import { createSession, useDevice } from "../../src/onnx/sessions.ts";
import { buildSlowModel } from "../support/models/slow-model.ts";

useDevice({ ...(await chooseDevice("cpu", 2)), intraOpThreads: 2 });
const ort = await loadOrt();
const x = () => ({ x: new ort.Tensor("float32", Float32Array.of(1, 2, 3, 4), [1, 4]) });
// About 50 ms a run: long enough that the release below lands inside it.
const model = buildSlowModel({ matSize: 256, repeats: 40 });
const settle = (run: Promise<Record<string, unknown>>) =>
  run.then(
    (out) => [...((out.y as { data: Float32Array }).data ?? [])],
    (error: Error) => `rejected: ${error.message}`,
  );

// A plain session released during a run whose caller is gone (a client that left).
const plain = (await createSession(model)).session;
const inFlight = settle(plain.run(x()));
const releasedPlain = plain.release();
const afterPlain = settle(plain.run(x()));
await releasedPlain;

// A pool released right after its first run, while it warms its other members in the background.
const pool = (await createSession(model, { parallel: 2 })).session;
const first = await settle(pool.run(x()));
await pool.release();
const afterPool = await settle(pool.run(x()));

console.log(JSON.stringify({ inFlight: await inFlight, afterPlain: await afterPlain, first, afterPool }));
