/**
 * Agreement with values computed independently in numpy/scipy by
 * test/reference/features_reference.py (np.fft.rfft, np.pad, scipy.signal.get_window, the
 * librosa mel algorithm). Regenerate with `python3 test/reference/features_reference.py`.
 */
import { describe, expect, test } from "bun:test";
import { nemoFbank } from "./fbank.ts";
import { melFilterbank } from "./mel.ts";
import { whisperLogMel } from "./whisper-mel.ts";

/** Two tones and LCG noise; same formula as `signal()` in the Python script. */
function referenceSignal(n: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const noise = ((i * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5;
    out[i] =
      0.3 * Math.sin((2 * Math.PI * 440 * i) / 16000) + 0.2 * Math.sin((2 * Math.PI * 3000 * i) / 16000) + 0.05 * noise;
  }
  return out;
}

const REFERENCE = {
  filters400: {
    "0,1": 0.02486259490251541,
    "0,2": 0.0,
    "1,2": 0.022871771827340126,
    "1,3": 0.0,
    "10,10": 0.019908219575881958,
    "10,11": 0.004954375326633453,
    "40,43": 0.014735565520823002,
    "40,44": 0.006518189795315266,
    "79,192": 0.0031647116411477327,
    "79,193": 0.0031413130927830935,
  },
  whisper80: {
    "0,0": 0.8816905256118793,
    "3,1": 0.37945204507331387,
    "10,50": 1.235616278852251,
    "25,100": -0.25768037764373,
    "40,150": 0.09135773724442808,
    "60,199": -0.00669240674925442,
    "79,200": 0.43020606742143697,
    "79,2999": -0.6670352601098719,
  },
  whisper128: {
    "40,0": 0.47667568342036215,
    "43,1": -0.08755580036946498,
    "50,50": -0.3190056746113197,
    "65,100": 0.1959180674727682,
    "80,150": -0.20767818710217334,
    "100,199": -0.07363373976322518,
    "119,200": 0.19026648810912494,
    "119,2999": -0.6199082261752105,
  },
  fbank: {
    "0,0": 9.499969507554374,
    "3,1": 3.905856411108219,
    "10,50": -0.18680034728841394,
    "25,100": -0.003144302732707961,
    "40,150": -0.7132180355346902,
    "79,199": 0.07334055166700554,
    "79,200": 0.0,
  },
  fbankReflect: {
    "0,0": 9.770596890340494,
    "3,1": 3.99776466887592,
    "10,50": -0.5526361933216224,
    "25,100": 0.09636390112122971,
    "40,150": -0.5819396917569489,
    "79,199": 0.14147626123450133,
    "79,200": 0.0,
  },
  whisper80Sum: -148802.56783464918,
  whisper128Sum: -222483.43646013836,
  fbankSumAbs: 8364.068642859605,
};

const x = referenceSignal(2 * 16000);

function at(data: Float32Array, nFrames: number, key: string): number {
  const [row, column] = key.split(",").map(Number) as [number, number];
  return data[row * nFrames + column]!;
}

function sum(data: Float32Array, map: (v: number) => number = (v) => v): number {
  let total = 0;
  for (const v of data) total += map(v);
  return total;
}

describe("reference agreement", () => {
  test("does match librosa-style filter weights when n_fft is 400", () => {
    const bank = melFilterbank({ sampleRate: 16000, nFft: 400, nMels: 80 });
    for (const [key, value] of Object.entries(REFERENCE.filters400)) {
      const [m, k] = key.split(",").map(Number) as [number, number];
      expect(bank.weights[m * bank.nBins + k]!).toBeCloseTo(value, 7);
    }
  });

  test("does match the numpy Whisper log-mel when given 2 s of tones and noise", () => {
    for (const [nMels, points, total] of [
      [80, REFERENCE.whisper80, REFERENCE.whisper80Sum],
      [128, REFERENCE.whisper128, REFERENCE.whisper128Sum],
    ] as const) {
      const mel = whisperLogMel(x, { nMels });
      for (const [key, value] of Object.entries(points)) expect(at(mel.data, mel.nFrames, key)).toBeCloseTo(value, 5);
      expect(Math.abs(sum(mel.data) - total)).toBeLessThan(0.05);
    }
  });

  test("does match the numpy NeMo features for both padding modes", () => {
    const constant = nemoFbank(x);
    expect([constant.nMels, constant.nFrames]).toEqual([80, 201]);
    for (const [key, value] of Object.entries(REFERENCE.fbank))
      expect(at(constant.data, constant.nFrames, key)).toBeCloseTo(value, 4);
    expect(Math.abs(sum(constant.data, Math.abs) - REFERENCE.fbankSumAbs)).toBeLessThan(0.05);
    const reflect = nemoFbank(x, { padMode: "reflect" });
    for (const [key, value] of Object.entries(REFERENCE.fbankReflect))
      expect(at(reflect.data, reflect.nFrames, key)).toBeCloseTo(value, 4);
  });
});
