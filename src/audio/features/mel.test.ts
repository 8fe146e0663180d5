import { describe, expect, test } from "bun:test";
import { hannWindow, hzToMel, melFilterbank, melToHz, reflectPadded } from "./mel.ts";

describe("Slaney mel scale", () => {
  test("does map 1 kHz to 15 mel and 6.4 kHz to 42 mel", () => {
    expect(hzToMel(0)).toBe(0);
    expect(hzToMel(500)).toBeCloseTo(7.5, 12);
    expect(hzToMel(1000)).toBeCloseTo(15, 12);
    expect(hzToMel(6400)).toBeCloseTo(42, 12);
  });

  test("does invert exactly when converting back to Hz", () => {
    for (const hz of [0, 123.4, 999.9, 1000, 2500, 8000]) expect(melToHz(hzToMel(hz))).toBeCloseTo(hz, 9);
  });
});

describe("melFilterbank", () => {
  const bank = melFilterbank({ sampleRate: 16000, nFft: 400, nMels: 80 });

  test("does reproduce openai-whisper's published mel_80 weights", () => {
    // Spot values of mel_filters.npz["mel_80"] ([mel][bin]) as quoted by independent ports.
    const published: [number, number, number][] = [
      [0, 1, 0.02486259490251541],
      [1, 1, 0.001990821911022067],
      [1, 2, 0.022871771827340126],
      [2, 2, 0.003981643822044134],
      [2, 3, 0.02088095061480999],
      [79, 199, 0.00044875902758905584],
    ];
    for (const [m, k, value] of published) expect(bank.weights[m * bank.nBins + k]!).toBeCloseTo(value, 9);
    expect(bank.weights[0]).toBe(0);
  });

  test("does follow the triangle formula when checked bin by bin", () => {
    // Filter m rises from edge m to edge m+1 and falls to edge m+2, scaled by 2/(width in Hz).
    const melMax = hzToMel(8000);
    const edge = (i: number): number => melToHz((melMax * i) / 81);
    for (const m of [5, 30, 60]) {
      for (let k = 0; k < bank.nBins; k++) {
        const hz = k * 40;
        const up = (hz - edge(m)) / (edge(m + 1) - edge(m));
        const down = (edge(m + 2) - hz) / (edge(m + 2) - edge(m + 1));
        const expected = Math.max(0, Math.min(up, down)) * (2 / (edge(m + 2) - edge(m)));
        expect(bank.weights[m * bank.nBins + k]!).toBeCloseTo(expected, 7);
      }
    }
  });

  test("does keep every non-zero weight inside the filter's bin range", () => {
    for (const b of [
      bank,
      melFilterbank({ sampleRate: 16000, nFft: 512, nMels: 80 }),
      melFilterbank({ sampleRate: 16000, nFft: 400, nMels: 128 }),
    ]) {
      for (let m = 0; m < b.nMels; m++) {
        for (let k = 0; k < b.nBins; k++) {
          const inside = k >= b.start[m]! && k < b.end[m]!;
          if (!inside) expect(b.weights[m * b.nBins + k]).toBe(0);
        }
      }
    }
  });
});

describe("hannWindow", () => {
  test("does peak at n/2 and not repeat its zero when periodic", () => {
    const w = hannWindow(400, true);
    expect(w[0]).toBe(0);
    expect(w[200]).toBeCloseTo(1, 15);
    expect(w[399]).toBeGreaterThan(0);
    expect(w[1]).toBeCloseTo(w[399]!, 15);
  });

  test("does end on zero at both sides when symmetric", () => {
    const w = hannWindow(400, false);
    expect(w[0]).toBe(0);
    expect(w[399]).toBeCloseTo(0, 15);
    expect(w[10]).toBeCloseTo(w[389]!, 15);
  });
});

describe("reflectPadded", () => {
  test("does mirror without repeating the edge sample", () => {
    expect(Array.from(reflectPadded(new Float32Array([1, 2, 3, 4]), 4, 2))).toEqual([3, 2, 1, 2, 3, 4, 3, 2]);
  });

  test("does zero-extend to the requested length before reflecting", () => {
    expect(Array.from(reflectPadded(new Float32Array([1, 2]), 4, 1))).toEqual([2, 1, 2, 0, 0, 0]);
  });

  test("does bounce back and forth when the signal is shorter than the pad", () => {
    expect(Array.from(reflectPadded(new Float32Array([1, 2]), 2, 3))).toEqual([2, 1, 2, 1, 2, 1, 2, 1]);
  });
});
