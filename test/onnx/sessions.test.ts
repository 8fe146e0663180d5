/**
 * The session factory on real onnxruntime sessions: results, worker threading, warm-up, broken
 * models, release.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { chooseDevice } from "../../src/onnx/devices.ts";
import { loadOrt } from "../../src/onnx/ort.ts";
import { createSession, currentDevice, useDevice, warmUp } from "../../src/onnx/sessions.ts";
import { buildSlowModel } from "../support/models/slow-model.ts";
import { tempDir } from "../support/sawt.ts";
import { slowFeeds } from "../support/slow-engine.ts";

beforeAll(async () => useDevice(await chooseDevice("auto", 1)));

describe("createSession", () => {
  test("does run a real model in a worker and return ort tensors with exact values", async () => {
    const ort = await loadOrt();
    const { session, provider } = await createSession(buildSlowModel({ matSize: 64, repeats: 3 }), { label: "small" });
    try {
      expect(provider).toBe(currentDevice().provider);
      expect(session.inputNames).toEqual(["x"]);
      expect(session.outputNames).toEqual(["y"]);
      expect(session.outputMetadata[0]).toMatchObject({ name: "y", type: "float32", shape: [1, 4] });
      const out = await session.run({ x: new ort.Tensor("float32", Float32Array.of(-1.5, 0, 2.25, 1e6), [1, 4]) });
      expect(out.y).toBeInstanceOf(ort.Tensor);
      expect(out.y!.dims).toEqual([1, 4]);
      expect([...(out.y!.data as Float32Array)]).toEqual([-1.5, 0, 2.25, 1e6]);
    } finally {
      await session.release();
    }
  });

  test("does keep the event loop free while a model runs", async () => {
    const { session } = await createSession(buildSlowModel({ repeats: 150 }), { label: "slow" });
    try {
      await warmUp(session, await slowFeeds());
      const order: string[] = [];
      const run = session.run(await slowFeeds()).then(() => order.push("inference done"));
      // Timers fire during the run: on the main thread, onnxruntime-node would block them until it ended.
      await new Promise((resolve) => setTimeout(resolve, 1)).then(() => order.push("timer fired"));
      await run;
      expect(order).toEqual(["timer fired", "inference done"]);
    } finally {
      await session.release();
    }
  });

  test("does run two sessions side by side and report each run's own time", async () => {
    const a = await createSession(buildSlowModel({ matSize: 64, repeats: 2 }));
    const b = await createSession(buildSlowModel({ matSize: 64, repeats: 4 }));
    try {
      const [ra, rb] = await Promise.all([
        a.session.runTimed(await slowFeeds()),
        b.session.runTimed(await slowFeeds()),
      ]);
      expect([...(ra.outputs.y!.data as Float32Array)]).toEqual([1, 2, 3, 4]);
      expect([...(rb.outputs.y!.data as Float32Array)]).toEqual([1, 2, 3, 4]);
      expect(ra.seconds).toBeGreaterThan(0);
      expect(await warmUp(a.session, await slowFeeds())).toBeGreaterThan(0);
    } finally {
      await Promise.all([a.session.release(), b.session.release()]);
    }
  });

  test("does reject a model onnxruntime cannot load with its reason", async () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "model.onnx");
      writeFileSync(file, "this is not an onnx model");
      const raw = await createSession(file).catch((e: unknown) => e);
      expect((raw as Error).message).toMatch(/protobuf parsing failed/i);
    } finally {
      dir.remove();
    }
  });

  test("does reject feeds the model does not accept without killing the session", async () => {
    const ort = await loadOrt();
    const { session } = await createSession(buildSlowModel({ matSize: 64, repeats: 1 }));
    try {
      const error = await session
        .run({ x: new ort.Tensor("float32", Float32Array.of(1, 2), [1, 2]) })
        .catch((e: unknown) => e);
      expect((error as Error).message).toMatch(/invalid dimensions for input: x/);
      expect([...((await session.run(await slowFeeds())).y!.data as Float32Array)]).toEqual([1, 2, 3, 4]);
    } finally {
      await session.release();
    }
  });

  test("does refuse runs after release", async () => {
    const { session } = await createSession(buildSlowModel({ matSize: 64, repeats: 1 }));
    await session.release();
    const error = await session.run(await slowFeeds()).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/released/);
  });
});
