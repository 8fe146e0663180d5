import { describe, expect, test } from "bun:test";
import { hzToMel, melToHz } from "./mel.ts";
import { whisperLogMel } from "./whisper-mel.ts";

function tone(hz: number, seconds: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * 16000));
  for (let i = 0; i < out.length; i++) out[i] = 0.5 * Math.sin((2 * Math.PI * hz * i) / 16000);
  return out;
}

/** Index of the filter whose centre frequency is closest to `hz`. */
function nearestFilter(hz: number, nMels: number): number {
  const melMax = hzToMel(8000);
  let best = 0;
  for (let m = 0; m < nMels; m++) {
    const centre = melToHz((melMax * (m + 1)) / (nMels + 1));
    const bestCentre = melToHz((melMax * (best + 1)) / (nMels + 1));
    if (Math.abs(centre - hz) < Math.abs(bestCentre - hz)) best = m;
  }
  return best;
}

function column(data: Float32Array, nMels: number, nFrames: number, t: number): number[] {
  return Array.from({ length: nMels }, (_, m) => data[m * nFrames + t]!);
}

describe("whisperLogMel", () => {
  test("does produce [80, 3000] and [128, 3000] when given 30 s of audio", () => {
    const audio = tone(440, 30);
    const mel80 = whisperLogMel(audio, { nMels: 80 });
    expect([mel80.nMels, mel80.nFrames, mel80.data.length]).toEqual([80, 3000, 240_000]);
    const mel128 = whisperLogMel(audio, { nMels: 128 });
    expect([mel128.nMels, mel128.nFrames, mel128.data.length]).toEqual([128, 3000, 384_000]);
  });

  test("does pad short audio and trim long audio to the 3000-frame window", () => {
    const long = tone(300, 31);
    const trimmed = whisperLogMel(long, { nMels: 80 });
    expect(trimmed.nFrames).toBe(3000);
    expect(trimmed.data).toEqual(whisperLogMel(long.subarray(0, 480_000), { nMels: 80 }).data);
    expect(whisperLogMel(tone(300, 2), { nMels: 80 }).nFrames).toBe(3000);
    expect(whisperLogMel(tone(300, 1), { nMels: 80, nFrames: 500 }).nFrames).toBe(500);
  });

  test("does keep the audio's own length when nFrames is null", () => {
    expect(whisperLogMel(new Float32Array(16_000), { nMels: 80, nFrames: null }).nFrames).toBe(100);
    expect(whisperLogMel(new Float32Array(16_159), { nMels: 80, nFrames: null }).nFrames).toBe(100);
    expect(whisperLogMel(new Float32Array(0), { nMels: 80, nFrames: null }).data.length).toBe(0);
  });

  test("does put a pure tone's energy in the filter centred nearest to it", () => {
    for (const hz of [250, 1000, 3000]) {
      const mel = whisperLogMel(tone(hz, 1), { nMels: 80, nFrames: null });
      const values = column(mel.data, 80, mel.nFrames, 50);
      const peak = values.indexOf(Math.max(...values));
      expect(Math.abs(peak - nearestFilter(hz, 80))).toBeLessThanOrEqual(1);
    }
  });

  test("does clamp everything to within 8 decades of the maximum", () => {
    const mel = whisperLogMel(tone(1000, 2), { nMels: 80 });
    let max = -Infinity;
    let min = Infinity;
    for (const v of mel.data) {
      max = Math.max(max, v);
      min = Math.min(min, v);
    }
    // (log − 8 + 4)/4 = normalised max − 2; the silent padding sits exactly on that floor.
    expect(min).toBeCloseTo(max - 2, 5);
  });

  test("does map digital silence to -1.5 everywhere", () => {
    const mel = whisperLogMel(new Float32Array(1000), { nMels: 80, nFrames: 10 });
    expect(Array.from(new Set(mel.data))).toEqual([-1.5]);
  });

  test("does give identical output when run twice with other sizes in between", () => {
    const audio = tone(700, 3);
    const first = whisperLogMel(audio, { nMels: 80 });
    whisperLogMel(audio, { nMels: 128 });
    expect(whisperLogMel(audio, { nMels: 80 }).data).toEqual(first.data);
  });

  test("does reject a non-integer mel count", () => {
    expect(() => whisperLogMel(new Float32Array(10), { nMels: 0 })).toThrow(RangeError);
  });
});
