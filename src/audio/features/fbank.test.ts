import { describe, expect, test } from "bun:test";
import { nemoFbank } from "./fbank.ts";
import { hzToMel, melToHz } from "./mel.ts";

function tone(hz: number, seconds: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * 16000));
  for (let i = 0; i < out.length; i++) out[i] = 0.5 * Math.sin((2 * Math.PI * hz * i) / 16000);
  return out;
}

function row(data: Float32Array, nFrames: number, m: number): Float32Array {
  return data.subarray(m * nFrames, (m + 1) * nFrames);
}

describe("nemoFbank", () => {
  test("does give 1 + len/hop frames with the last one zeroed when given 1 s", () => {
    const features = nemoFbank(tone(440, 1));
    expect([features.nMels, features.nFrames, features.validFrames]).toEqual([80, 101, 100]);
    for (let m = 0; m < 80; m++) expect(features.data[m * 101 + 100]).toBe(0);
  });

  test("does normalise each mel row to zero mean and unit std over the valid frames", () => {
    const audio = tone(440, 1).map((v, i) => v * (1 + Math.sin(i / 900)) + 0.01 * Math.sin(i * 1.3));
    const { data, nFrames, validFrames } = nemoFbank(audio);
    for (const m of [0, 20, 79]) {
      const values = row(data, nFrames, m).subarray(0, validFrames);
      const mean = values.reduce((a, b) => a + b, 0) / validFrames;
      const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / (validFrames - 1);
      expect(mean).toBeCloseTo(0, 4);
      expect(Math.sqrt(variance)).toBeCloseTo(1, 3);
    }
  });

  test("does put a pure tone's energy in the filter centred nearest to it when not normalised", () => {
    const melMax = hzToMel(8000);
    for (const hz of [300, 1000, 4000]) {
      const { data, nFrames } = nemoFbank(tone(hz, 0.5), { normalize: "none" });
      const values = Array.from({ length: 80 }, (_, m) => data[m * nFrames + 25]!);
      const peak = values.indexOf(Math.max(...values));
      const centre = melToHz((melMax * (peak + 1)) / 81);
      const spacing = melToHz((melMax * (peak + 2)) / 81) - centre;
      expect(Math.abs(centre - hz)).toBeLessThanOrEqual(spacing);
    }
  });

  test("does attenuate low frequencies by the preemphasis response", () => {
    const audio = tone(100, 0.5);
    const plain = nemoFbank(audio, { normalize: "none", preemphasis: 0 });
    const emphasised = nemoFbank(audio, { normalize: "none" });
    // |1 − 0.97·e^{−iω}|² at 100 Hz is about e^{−6}: the log power drops by about 6 nats.
    const at = (f: typeof plain): number =>
      Math.max(...Array.from({ length: 10 }, (_, m) => f.data[m * f.nFrames + 25]!));
    expect(at(plain) - at(emphasised)).toBeGreaterThan(5);
    expect(at(plain) - at(emphasised)).toBeLessThan(7);
  });

  test("does return only zero padding when the audio is shorter than one hop", () => {
    const features = nemoFbank(new Float32Array(100));
    expect([features.nFrames, features.validFrames]).toEqual([1, 0]);
    expect(features.data.every((v) => v === 0)).toBe(true);
  });

  test("does give identical output when run twice", () => {
    const audio = tone(523, 1.3);
    expect(nemoFbank(audio).data).toEqual(nemoFbank(audio).data);
  });

  test("does reject a window longer than the FFT", () => {
    expect(() => nemoFbank(new Float32Array(10), { winLength: 600 })).toThrow(RangeError);
  });
});
