/**
 * floatToInt16 rounds with floor(x + 0.5) for speed; this holds it to Math.round, sample for
 * sample, on the values where the two could part: halves either side of zero, the clip edges,
 * non-finite input and a spread of ordinary samples.
 */
import { describe, expect, test } from "bun:test";
import { floatToInt16 } from "./wav.ts";

/** The reference: Math.round of x·32768, clipped to int16, NaN → 0. */
function reference(samples: Float32Array): Int16Array {
  return Int16Array.from(samples, (sample) => {
    const rounded = Math.round(sample * 32768);
    if (Number.isNaN(rounded)) return 0;
    return Math.min(32767, Math.max(-32768, rounded));
  });
}

describe("floatToInt16 rounding", () => {
  test("does round exactly as Math.round when samples sit on halves, clip edges or are not finite", () => {
    const halves = [-32768.5, -32767.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 32766.5, 32767.25, 32767.5];
    const samples = Float32Array.from([
      ...halves.map((h) => h / 32768),
      -0,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      Number.NaN,
      1,
      -1,
      1.5,
      -1.5,
    ]);
    expect(Array.from(floatToInt16(samples))).toEqual(Array.from(reference(samples)));
  });

  test("does match Math.round on 100,000 seeded samples across and beyond full scale", () => {
    let state = 12345;
    const next = () => ((state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32) * 2.4 - 1.2;
    const samples = Float32Array.from({ length: 100_000 }, next);
    expect(floatToInt16(samples)).toEqual(reference(samples));
  });
});
