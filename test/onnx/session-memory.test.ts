/**
 * Memory that follows the models (issue 38) on real onnxruntime sessions: each open session's
 * measured cost counts for its pack until it is released, a pool with lanes on demand starts with
 * its solo session and opens lanes only when runs overlap (closing them once idle), and the idle
 * heap trim leaves sessions working.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Tensor } from "onnxruntime-node";
import { chooseDevice } from "../../src/onnx/devices.ts";
import { heapTuned, trimHeap } from "../../src/onnx/native-heap.ts";
import { f32, ortModule } from "../../src/onnx/runner.ts";
import { packResidentBytes, packResidentMb, residentMbOf } from "../../src/onnx/session-memory.ts";
import { poolShape, SessionPool } from "../../src/onnx/session-pool.ts";
import { createSession, currentDevice, useDevice } from "../../src/onnx/sessions.ts";
import { buildSlowModel } from "../support/models/slow-model.ts";
import { until } from "../support/sawt.ts";

const before = currentDevice();
beforeAll(async () => {
  useDevice({ ...(await chooseDevice("cpu", 2)), intraOpThreads: 2 });
  await ortModule();
});
afterAll(() => useDevice(before));

const x = (v: number): Record<string, Tensor> => ({ x: f32([v, v, v, v], [1, 4]) });

describe("session memory", () => {
  test("does count a session's measured cost for its pack while it is open, and serialise it live", async () => {
    // Dense weights of 16 MB: the model's cost must show, whatever else the process frees meanwhile
    // (the measure is the process's RSS growth: other tests' garbage collected during it counts).
    const model = buildSlowModel({ matSize: 2048, repeats: 1 });
    const { session } = await createSession(model, { label: "memory-pack/model.onnx" });
    const report = residentMbOf(["memory-pack", "other-pack"]);
    expect(packResidentBytes("memory-pack")).toBeGreaterThan(8 * 2 ** 20);
    expect(JSON.parse(JSON.stringify(report))).toEqual({
      "memory-pack": packResidentMb("memory-pack"),
      "other-pack": 0,
    });
    // A second session of the same file takes the first one's figure.
    const { session: second } = await createSession(model, { label: "memory-pack/model.onnx" });
    const one = packResidentBytes("memory-pack") / 2;
    expect(one).toBeGreaterThan(8 * 2 ** 20);
    await Promise.all([session.release(), second.release()]);
    expect(packResidentBytes("memory-pack")).toBe(0);
    expect(JSON.parse(JSON.stringify(report))["memory-pack"]).toBe(0);
  });

  test("does trim the heap when asked, leaving sessions without an arena that run on afterwards", async () => {
    expect(heapTuned()).toBe(true); // the appliance's Debian: glibc
    const { session } = await createSession(buildSlowModel({ matSize: 64, repeats: 2 }), { shrinkWorkingMemory: true });
    try {
      await session.run(x(3));
      await trimHeap();
      const out = await session.run(x(5));
      expect([...(out.y!.data as Float32Array)]).toEqual([5, 5, 5, 5]);
    } finally {
      await session.release();
    }
  });
});

describe("a pool with lanes on demand", () => {
  test("does start with its solo session, open the lanes when runs overlap, and close them once idle", async () => {
    const model = buildSlowModel({ matSize: 256, repeats: 40 });
    const shape = poolShape(2, 2);
    const open = async () => (await createSession(model, { intraOpThreads: shape.laneThreads })).session;
    const solo = (await createSession(model, { intraOpThreads: shape.soloThreads })).session;
    const pool = new SessionPool(shape, [], solo, { open, idleMs: 300 });
    try {
      expect(pool.members()).toEqual([solo]);
      expect(pool.inputNames).toEqual(["x"]);
      expect([...((await pool.run(x(1))).y!.data as Float32Array)]).toEqual([1, 1, 1, 1]);
      expect(pool.members()).toHaveLength(1);
      // Overlapping runs: both served (by the solo session meanwhile), and the lanes open.
      const outs = await Promise.all([pool.run(x(2)), pool.run(x(3))]);
      expect(outs.map((o) => (o.y!.data as Float32Array)[0])).toEqual([2, 3]);
      await until(() => pool.members().length === 3, "the lanes to open", { timeoutMs: 20_000 });
      const more = await Promise.all([4, 5, 6].map((v) => pool.run(x(v))));
      expect(more.map((o) => (o.y!.data as Float32Array)[0])).toEqual([4, 5, 6]);
      expect(
        pool
          .usage()
          .filter((u) => u.role === "lane")
          .every((u) => u.runs > 0),
      ).toBe(true);
      // Idle for the idle time: the lanes close, the solo session stays and serves.
      await until(() => pool.members().length === 1, "the lanes to close", { timeoutMs: 5000 });
      expect(pool.members()).toEqual([solo]);
      expect([...((await pool.run(x(7))).y!.data as Float32Array)]).toEqual([7, 7, 7, 7]);
    } finally {
      await pool.release();
    }
  });

  test("does open only its solo session from createSession, and release lanes opening at release", async () => {
    const { session } = await createSession(buildSlowModel({ matSize: 64, repeats: 2 }), {
      parallel: 2,
      lanesOnDemand: true,
      label: "on-demand/model.onnx",
    });
    const pool = session as SessionPool;
    expect(pool).toBeInstanceOf(SessionPool);
    expect(pool.usage().map((u) => u.role)).toEqual(["solo"]);
    await Promise.all([pool.run(x(1)), pool.run(x(2))]);
    await pool.release();
    expect(packResidentBytes("on-demand")).toBe(0);
    await expect(pool.run(x(1))).rejects.toThrow(/released/);
  });
});
