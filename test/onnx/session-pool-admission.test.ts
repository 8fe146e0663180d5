/**
 * The session pool reads the process's admitted jobs (issue #19): in a server a lone request's
 * run takes the solo session (every core) at once, and one whose company is already admitted
 * (still in the front-end, or on another model) takes a lane, so the two never stack three
 * threads on two cores. Real onnxruntime sessions of the slow model; dispatch read from usage().
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Tensor } from "onnxruntime-node";
import { Admission, runningAdmittedJobs } from "../../src/serving/admission.ts";
import { chooseDevice } from "../../src/onnx/devices.ts";
import { loadOrt } from "../../src/onnx/ort.ts";
import type { SessionPool } from "../../src/onnx/session-pool.ts";
import { createSession, currentDevice, useDevice } from "../../src/onnx/sessions.ts";
import { buildSlowModel } from "../support/models/slow-model.ts";

const before = currentDevice();
beforeAll(async () => useDevice({ ...(await chooseDevice("cpu", 2)), intraOpThreads: 2 }));
afterAll(() => useDevice(before));

const admission = (name: string) =>
  new Admission({
    name,
    concurrency: 4,
    maxQueue: 4,
    queueTimeoutMs: 10_000,
    busyDetail: "busy",
    timeoutDetail: "late",
  });

describe("session pool under admission", () => {
  test("does send a lone admitted run to the solo session and one with admitted company to a lane", async () => {
    const ort = await loadOrt();
    const x = { x: new ort.Tensor("float32", Float32Array.of(1, 2, 3, 4), [1, 4]) } as Record<string, Tensor>;
    const { session } = await createSession(buildSlowModel({ matSize: 64, repeats: 2 }), { parallel: 2 });
    const pool = session as SessionPool;
    const tts = admission("tts");
    const asr = admission("asr");
    const runs = () => pool.usage().map((u) => u.runs);
    try {
      expect(runningAdmittedJobs()).toBe(0);
      // Alone under admission, after quiet: the solo session.
      await Bun.sleep(pool.overlapMemoryMs() + 100);
      await tts.run(() => pool.run(x));
      expect(runs()).toEqual([1, 0, 0]);

      // Another engine's job is admitted and running: the lone run takes a lane instead.
      await Bun.sleep(pool.overlapMemoryMs() + 100);
      let finishOther!: () => void;
      const other = asr.run(() => new Promise<void>((resolve) => (finishOther = resolve)));
      await Bun.sleep(10);
      expect(runningAdmittedJobs()).toBe(1);
      await tts.run(() => pool.run(x));
      expect(runs()).toEqual([1, 1, 0]);
      finishOther();
      await other;
      expect(runningAdmittedJobs()).toBe(0);

      // Alone again: solo.
      await Bun.sleep(pool.overlapMemoryMs() + 100);
      await tts.run(() => pool.run(x));
      expect(runs()).toEqual([2, 1, 0]);
    } finally {
      await session.release();
    }
  });
});
