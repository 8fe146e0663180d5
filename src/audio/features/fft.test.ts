import { describe, expect, test } from "bun:test";
import { createComplexFft, createRealFft } from "./fft.ts";

/** Deterministic pseudo-random values in [-0.5, 0.5). */
function random(n: number, seed: number): Float64Array {
  const out = new Float64Array(n);
  let state = seed >>> 0;
  for (let i = 0; i < n; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state / 2 ** 32 - 0.5;
  }
  return out;
}

/** The DFT by its definition, O(n²). */
function naiveDft(re: Float64Array, im: Float64Array): [Float64Array, Float64Array] {
  const n = re.length;
  const outRe = new Float64Array(n);
  const outIm = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    for (let j = 0; j < n; j++) {
      const angle = (-2 * Math.PI * ((j * k) % n)) / n;
      outRe[k]! += re[j]! * Math.cos(angle) - im[j]! * Math.sin(angle);
      outIm[k]! += re[j]! * Math.sin(angle) + im[j]! * Math.cos(angle);
    }
  }
  return [outRe, outIm];
}

function maxAbs(a: ArrayLike<number>): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]!));
  return max;
}

describe("createComplexFft", () => {
  for (const n of [1, 2, 3, 4, 5, 6, 7, 8, 12, 15, 49, 77, 200, 256, 400]) {
    test(`does match the naive DFT when n is ${n}`, () => {
      const re = random(n, n);
      const im = random(n, n + 1000);
      const [expectRe, expectIm] = naiveDft(re, im);
      createComplexFft(n).forward(re, im);
      const scale = Math.max(1, maxAbs(expectRe), maxAbs(expectIm));
      for (let k = 0; k < n; k++) {
        expect(Math.abs(re[k]! - expectRe[k]!) / scale).toBeLessThan(1e-12);
        expect(Math.abs(im[k]! - expectIm[k]!) / scale).toBeLessThan(1e-12);
      }
    });
  }

  test("does reject a size that is not a positive integer", () => {
    expect(() => createComplexFft(0)).toThrow(RangeError);
    expect(() => createComplexFft(2.5)).toThrow(RangeError);
  });
});

describe("createRealFft", () => {
  for (const n of [400, 512, 2, 6, 9, 25]) {
    test(`does match the naive DFT of real input when n is ${n}`, () => {
      const x = random(n, 7 * n);
      const [expectRe, expectIm] = naiveDft(x, new Float64Array(n));
      const fft = createRealFft(n);
      expect(fft.bins).toBe((n >> 1) + 1);
      const re = new Float64Array(fft.bins);
      const im = new Float64Array(fft.bins);
      fft.forward(x, re, im);
      const scale = Math.max(maxAbs(expectRe), maxAbs(expectIm));
      // Far inside the 1e-3 relative budget: double precision throughout.
      for (let k = 0; k < fft.bins; k++) {
        expect(Math.abs(re[k]! - expectRe[k]!) / scale).toBeLessThan(1e-12);
        expect(Math.abs(im[k]! - expectIm[k]!) / scale).toBeLessThan(1e-12);
      }
    });
  }

  test("does satisfy Parseval's theorem when given random input of size 400", () => {
    const n = 400;
    const x = random(n, 99);
    const fft = createRealFft(n);
    const power = new Float64Array(fft.bins);
    fft.power(x, power);
    let time = 0;
    for (const v of x) time += v * v;
    // One-sided spectrum: bins 1..n/2-1 stand for two conjugate bins each.
    let frequency = power[0]! + power[n / 2]!;
    for (let k = 1; k < n / 2; k++) frequency += 2 * power[k]!;
    expect(frequency / n).toBeCloseTo(time, 10);
  });

  test("does put a bin-centred cosine's energy in exactly its bin", () => {
    const n = 400;
    const x = new Float64Array(n).map((_, i) => Math.cos((2 * Math.PI * 37 * i) / n));
    const power = new Float32Array(201);
    createRealFft(n).power(x, power);
    expect(power[37]).toBeCloseTo((n / 2) ** 2, 3);
    expect(power[36]! + power[38]!).toBeLessThan(1e-12);
  });

  test("does give identical output when the same plan runs twice", () => {
    const fft = createRealFft(512);
    const x = random(512, 3);
    const a = new Float64Array(257);
    const b = new Float64Array(257);
    fft.power(x, a);
    fft.power(random(512, 4), b);
    fft.power(x, b);
    expect(b).toEqual(a);
  });
});
