import { describe, expect, test } from "bun:test";
import { msOf, roundSeconds, samplesOfMs, secondsOf } from "./speech-rate.ts";

describe("speech-rate conversions", () => {
  test("does give seconds to the millisecond when samples are not a whole millisecond", () => {
    expect(secondsOf(16_000)).toBe(1);
    expect(secondsOf(24_008)).toBe(1.501); // 1.5005 s rounds up
    expect(secondsOf(7)).toBe(0); // 0.44 ms
    expect(roundSeconds(2.0004999)).toBe(2);
  });

  test("does round milliseconds and samples both ways when they do not divide", () => {
    expect(msOf(16_000)).toBe(1000);
    expect(msOf(8)).toBe(1); // 0.5 ms rounds up
    expect(samplesOfMs(20)).toBe(320);
    expect(samplesOfMs(0.03)).toBe(0);
    expect(samplesOfMs(msOf(4_800))).toBe(4_800);
  });
});
