/**
 * Session pools (issue #19) on real onnxruntime sessions: the shape (lanes of cores ÷ parallel
 * threads plus an all-cores solo session), the dispatch rule (a run alone → solo, overlapping runs
 * → the least busy lanes), identical results from every member, warming of cold members, release.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Tensor } from "onnxruntime-node";
import { chooseDevice } from "../../src/onnx/devices.ts";
import { loadOrt } from "../../src/onnx/ort.ts";
import { poolShape, SessionPool } from "../../src/onnx/session-pool.ts";
import { createSession, currentDevice, useDevice } from "../../src/onnx/sessions.ts";
import { buildSlowModel } from "../support/models/slow-model.ts";
import { until } from "../support/sawt.ts";

const before = currentDevice();
beforeAll(async () => useDevice({ ...(await chooseDevice("cpu", 2)), intraOpThreads: 2 }));
afterAll(() => useDevice(before));

async function feeds(values: readonly number[]): Promise<Record<string, Tensor>> {
  const ort = await loadOrt();
  return { x: new ort.Tensor("float32", Float32Array.from(values), [1, 4]) };
}

describe("poolShape", () => {
  test("does split the threads over the lanes and add a solo session only when a lane has fewer", () => {
    expect(poolShape(1, 2)).toEqual({ lanes: 1, laneThreads: 2, soloThreads: 0 });
    expect(poolShape(2, 2)).toEqual({ lanes: 2, laneThreads: 1, soloThreads: 2 });
    expect(poolShape(4, 2)).toEqual({ lanes: 4, laneThreads: 1, soloThreads: 2 });
    expect(poolShape(2, 8)).toEqual({ lanes: 2, laneThreads: 4, soloThreads: 8 });
    expect(poolShape(3, 8)).toEqual({ lanes: 3, laneThreads: 2, soloThreads: 8 });
    expect(poolShape(2, 1)).toEqual({ lanes: 2, laneThreads: 1, soloThreads: 0 });
  });
});

describe("createSession with parallel runs", () => {
  test("does open one plain session for parallel 1, a pinned thread count or a single-thread device", async () => {
    const model = buildSlowModel({ matSize: 64, repeats: 2 });
    for (const options of [{ parallel: 1 }, { parallel: 3, intraOpThreads: 1 }]) {
      const { session } = await createSession(model, options);
      expect(session).not.toBeInstanceOf(SessionPool);
      await session.release();
    }
  });

  test("does send a run alone to the solo session and overlapping runs to the lanes, with the same results", async () => {
    const { session } = await createSession(buildSlowModel({ matSize: 256, repeats: 40 }), {
      label: "pool",
      parallel: 2,
    });
    try {
      expect(session).toBeInstanceOf(SessionPool);
      const pool = session as SessionPool;
      expect(pool.shape).toEqual({ lanes: 2, laneThreads: 1, soloThreads: 2 });
      expect(pool.inputNames).toEqual(["x"]);
      expect(pool.outputNames).toEqual(["y"]);

      const alone = await pool.run(await feeds([1, 2, 3, 4]));
      expect([...(alone.y!.data as Float32Array)]).toEqual([1, 2, 3, 4]);
      // (warm flags are left out: the lanes may be warming in the background by now)
      expect(pool.usage().map(({ role, threads, runs }) => ({ role, threads, runs }))).toEqual([
        { role: "solo", threads: 2, runs: 1 },
        { role: "lane", threads: 1, runs: 0 },
        { role: "lane", threads: 1, runs: 0 },
      ]);

      // Three at once: the first finds nothing running (solo), the next two the idle lanes.
      const inputs = [
        [5, 6, 7, 8],
        [-1, 0, 1, 2],
        [9, 9, 9, 1e6],
      ];
      const outs = await Promise.all(inputs.map(async (values) => pool.run(await feeds(values))));
      expect(outs.map((o) => [...(o.y!.data as Float32Array)])).toEqual(inputs);
      expect(pool.usage().map((u) => u.runs)).toEqual([2, 1, 1]);

      // Right after runs overlapped, a lone run still goes to a lane: steady load is not mistaken for a
      // lone request (which would put the solo session's threads on top of the lanes' next runs).
      const lone = await pool.run(await feeds([1, 1, 1, 1]));
      expect((lone.y!.data as Float32Array)[0]).toBe(1);
      expect(pool.usage().map((u) => u.runs)).toEqual([2, 2, 1]);

      // Four at once: all on the lanes, the least busy first.
      const four = await Promise.all([2, 3, 4, 5].map(async (v) => pool.run(await feeds([v, v, v, v]))));
      expect(four.map((o) => (o.y!.data as Float32Array)[0])).toEqual([2, 3, 4, 5]);
      expect(pool.usage().map((u) => u.runs)).toEqual([2, 4, 3]);

      // Once the pool has been quiet for the overlap memory (at least 200 ms, two run times), a lone run gets every core again.
      await Bun.sleep(pool.overlapMemoryMs() + 100);
      await pool.run(await feeds([6, 6, 6, 6]));
      expect(pool.usage().map((u) => u.runs)).toEqual([3, 4, 3]);

      // A burst after quiet: the first run holds a few milliseconds, the second joins, both take lanes.
      await Bun.sleep(pool.overlapMemoryMs() + 100);
      const x = await feeds([7, 7, 7, 7]);
      const burst = await Promise.all([pool.run(x), pool.run(x)]);
      expect(burst.map((o) => (o.y!.data as Float32Array)[0])).toEqual([7, 7]);
      expect(pool.usage().map((u) => u.runs)).toEqual([3, 5, 4]);
    } finally {
      await session.release();
    }
  });

  test("does repeat the first run on the members that never ran, in the background", async () => {
    const { session } = await createSession(buildSlowModel({ matSize: 64, repeats: 2 }), { parallel: 2 });
    const pool = session as SessionPool;
    try {
      expect(pool.usage().map((u) => u.warm)).toEqual([false, false, false]);
      await pool.run(await feeds([1, 2, 3, 4]));
      await until(() => pool.usage().every((u) => u.warm), "every member warm");
      expect(pool.usage().map((u) => u.runs)).toEqual([1, 0, 0]);
    } finally {
      await session.release();
    }
  });

  test("does release every member: later runs reject", async () => {
    const { session } = await createSession(buildSlowModel({ matSize: 64, repeats: 2 }), { parallel: 2 });
    await session.release();
    await expect(session.run(await feeds([1, 2, 3, 4]))).rejects.toThrow(/released/);
  });

  test("does fail as one session would when the model is broken, leaving no member open", async () => {
    await expect(createSession(Uint8Array.of(1, 2, 3), { parallel: 2 })).rejects.toThrow();
  });
});
