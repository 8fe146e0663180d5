import { describe, expect, test } from "bun:test";
import * as ort from "onnxruntime-node";
import { buildSlowModel, calibrateSlowModel } from "./slow-model.ts";

async function medianRunMs(bytes: Uint8Array): Promise<{ ms: number; y: Float32Array }> {
  const session = await ort.InferenceSession.create(bytes);
  try {
    const feeds = { x: new ort.Tensor("float32", Float32Array.of(-1.5, 0, 2.25, 1e6), [1, 4]) };
    let y: Float32Array = new Float32Array();
    const times: number[] = [];
    for (let i = 0; i < 4; i++) {
      const start = performance.now();
      y = (await session.run(feeds)).y?.data as Float32Array;
      times.push(performance.now() - start);
    }
    return { ms: times.slice(1).sort((a, b) => a - b)[1] as number, y };
  } finally {
    await session.release();
  }
}

describe("slow model", () => {
  test("returns x exactly when run through the MatMul chain", async () => {
    const session = await ort.InferenceSession.create(buildSlowModel({ matSize: 64, repeats: 5 }));
    expect(session.inputNames).toEqual(["x"]);
    expect(session.outputNames).toEqual(["y"]);
    const out = await session.run({ x: new ort.Tensor("float32", Float32Array.of(-1.5, 0, 2.25, 1e6), [1, 4]) });
    await session.release();
    expect(out.y?.dims).toEqual([1, 4]);
    expect(Array.from(out.y?.data as Float32Array)).toEqual([-1.5, 0, 2.25, 1e6]);
  });

  // An ordering with a 16× margin in work, not a timing budget: it only shows the chain is not
  // optimised away.
  test("takes longer when the chain has more MatMuls", async () => {
    const short = await medianRunMs(buildSlowModel({ matSize: 256, repeats: 2 }));
    const long = await medianRunMs(buildSlowModel({ matSize: 256, repeats: 32 }));
    expect(long.ms).toBeGreaterThan(short.ms * 2);
    expect(Array.from(long.y)).toEqual([-1.5, 0, 2.25, 1e6]);
  });

  test("sizes the chain from measurements when calibrated for a target time", async () => {
    const calibrated = await calibrateSlowModel(30, 256);
    expect(calibrated.repeats).toBeGreaterThanOrEqual(1);
    expect(calibrated.measuredMs).toBeGreaterThan(0);
    const { y } = await medianRunMs(calibrated.bytes);
    expect(Array.from(y)).toEqual([-1.5, 0, 2.25, 1e6]);
  });

  test("rejects sizes it cannot tile when matSize is not a multiple of 4", () => {
    expect(() => buildSlowModel({ matSize: 6, repeats: 1 })).toThrow(/multiple of 4/);
    expect(() => buildSlowModel({ matSize: 8, repeats: 0 })).toThrow(/repeats/);
  });
});
