/**
 * Held sessions (src/onnx/session.ts HeldSession, issue 38) on real onnxruntime sessions: the
 * tensors a hold keeps stay in the session's worker (fed once, outputs kept as the inputs they
 * name), holds on one worker keep apart, moved feeds leave this thread, a pool holds one member
 * for the whole sequence, and a released hold runs no more.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Tensor } from "onnxruntime-node";
import { chooseDevice } from "../../src/onnx/devices.ts";
import { f32, ortModule } from "../../src/onnx/runner.ts";
import type { SessionPool } from "../../src/onnx/session-pool.ts";
import { createSession, currentDevice, useDevice } from "../../src/onnx/sessions.ts";
import { GraphBuilder } from "../support/onnx/builder.ts";

const before = currentDevice();
beforeAll(async () => {
  useDevice({ ...(await chooseDevice("cpu", 2)), intraOpThreads: 2 });
  await ortModule();
});
afterAll(() => useDevice(before));

/**
 * A counter: `base` [1, 4] and `count` [1, 1] in; `sum` = base + count and `next` = count + 1 out,
 * so feeding `next` back as `count` counts the runs of a hold.
 */
function counterModel(): Uint8Array {
  const g = new GraphBuilder("counter");
  const base = g.input("base", "float32", [1, 4]);
  const count = g.input("count", "float32", [1, 1]);
  g.output(g.op("Add", [base, count]), "sum", "float32", [1, 4]);
  g.output(g.op("Add", [count, g.float(1)]), "next", "float32", [1, 1]);
  return g.toModel();
}

const values = (t: Tensor | undefined) => [...(t!.data as Float32Array)];
const KEEP = { next: "count" } as const;

describe("a held session", () => {
  test("does keep the feeds and the kept outputs in the worker between runs", async () => {
    const { session } = await createSession(counterModel());
    try {
      const hold = await session.hold();
      const first = await hold.run({
        feeds: { base: f32([10, 20, 30, 40], [1, 4]), count: f32([0], [1, 1]) },
        fetch: ["sum"],
        keep: KEEP,
      });
      expect(values(first.sum)).toEqual([10, 20, 30, 40]);
      // Nothing fed: `base` is the one sent first, `count` the last run's `next`.
      const second = await hold.run({ feeds: {}, fetch: ["sum"], keep: KEEP });
      expect(values(second.sum)).toEqual([11, 21, 31, 41]);
      expect(Object.keys(second)).toEqual(["sum"]);
      // A feed replaces what was kept under its name.
      const third = await hold.run({ feeds: { base: f32([0, 0, 0, 0], [1, 4]) }, fetch: ["sum", "next"], keep: KEEP });
      expect(values(third.sum)).toEqual([2, 2, 2, 2]);
      // A fetched output that is also kept comes back as a copy; the worker's stays fed back.
      expect(values(third.next)).toEqual([3]);
      const fourth = await hold.run({ feeds: {}, fetch: ["sum"], keep: KEEP });
      expect(values(fourth.sum)).toEqual([3, 3, 3, 3]);
      hold.release();
      hold.release();
      await expect(hold.run({ feeds: {}, fetch: ["sum"] })).rejects.toThrow(/released hold/);
    } finally {
      await session.release();
    }
  });

  test("does keep two holds on one worker apart", async () => {
    const { session } = await createSession(counterModel());
    try {
      const [a, b] = await Promise.all([session.hold(), session.hold()]);
      const start = (hold: typeof a, base: number) =>
        hold.run({
          feeds: { base: f32([base, base, base, base], [1, 4]), count: f32([0], [1, 1]) },
          fetch: ["sum"],
          keep: KEEP,
        });
      await Promise.all([start(a, 100), start(b, 200)]);
      const step = (hold: typeof a) => hold.run({ feeds: {}, fetch: ["sum"], keep: KEEP });
      await step(a);
      const [fromA, fromB] = await Promise.all([step(a), step(b)]);
      expect(values(fromA.sum)[0]).toBe(102);
      expect(values(fromB.sum)[0]).toBe(201);
      a.release();
      b.release();
    } finally {
      await session.release();
    }
  });

  test("does move the feeds it is told to move, leaving the others with the caller", async () => {
    const { session } = await createSession(counterModel());
    try {
      const hold = await session.hold();
      const base = f32([1, 2, 3, 4], [1, 4]);
      const count = f32([5], [1, 1]);
      const out = await hold.run({ feeds: { base, count }, fetch: ["sum"], keep: KEEP, transfer: ["base"] });
      expect(values(out.sum)).toEqual([6, 7, 8, 9]);
      expect((base.data as Float32Array).buffer.byteLength).toBe(0);
      expect(values(count)).toEqual([5]);
      hold.release();
    } finally {
      await session.release();
    }
  });

  test("does stay on one pool member from its first run to its release, which counts as busy", async () => {
    const { session } = await createSession(counterModel(), { parallel: 2 });
    const pool = session as SessionPool;
    try {
      const hold = await pool.hold();
      await hold.run({
        feeds: { base: f32([0, 0, 0, 0], [1, 4]), count: f32([0], [1, 1]) },
        fetch: ["sum"],
        keep: KEEP,
      });
      for (let i = 0; i < 3; i++) await hold.run({ feeds: {}, fetch: ["sum"], keep: KEEP });
      const last = await hold.run({ feeds: {}, fetch: ["sum"], keep: KEEP });
      // Every run found the same worker's count: one member served them all.
      expect(values(last.sum)[0]).toBe(4);
      expect(pool.usage().map((u) => u.runs)).toEqual([1, 0, 0]);
      // While held, the solo member is busy: a run now goes to a lane.
      await pool.run({ base: f32([1, 1, 1, 1], [1, 4]), count: f32([0], [1, 1]) });
      expect(pool.usage().map((u) => u.runs)).toEqual([1, 1, 0]);
      hold.release();
    } finally {
      await session.release();
    }
  });
});
