import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as ort from "onnxruntime-node";
import { decodeToneAudio, estimateSegmentSamples, sidFromAmplitude } from "./tone-decoder.ts";
import {
  TONE,
  buildToneVoice,
  maxToneId,
  toneAmplitude,
  toneBaseSamples,
  toneFrequency,
  toneSegmentSamples,
} from "./tone-voice.ts";

interface Synth {
  readonly lengthScale?: number;
  readonly sid?: number;
  readonly inputLength?: number;
  readonly noise?: readonly [number, number];
  /** onnxruntime log level for this run (4 = fatal only, for runs expected to fail). */
  readonly logSeverityLevel?: 0 | 1 | 2 | 3 | 4;
}

async function synthesize(
  session: ort.InferenceSession,
  ids: readonly number[],
  opts: Synth = {},
): Promise<ort.Tensor> {
  const [noise, noiseW] = opts.noise ?? [0.667, 0.8];
  const feeds: Record<string, ort.Tensor> = {
    input: new ort.Tensor("int64", BigInt64Array.from(ids, BigInt), [1, ids.length]),
    input_lengths: new ort.Tensor("int64", BigInt64Array.of(BigInt(opts.inputLength ?? ids.length)), [1]),
    scales: new ort.Tensor("float32", Float32Array.of(noise, opts.lengthScale ?? 1, noiseW), [3]),
  };
  if (opts.sid !== undefined) feeds.sid = new ort.Tensor("int64", BigInt64Array.of(BigInt(opts.sid)), [1]);
  const out = await session.run(feeds, { logSeverityLevel: opts.logSeverityLevel ?? 2 });
  const output = out.output;
  if (!(output instanceof ort.Tensor)) throw new Error("no output tensor");
  return output;
}

const samplesOf = (t: ort.Tensor): Float32Array => t.data as Float32Array;
// `^ _ a _ b _ c _ $` with a, b, c spread over the id range.
const IDS = [1, 0, 17, 0, 42, 3, 9, 0, 2];

const sessions = new Map<string, ort.InferenceSession>();
beforeAll(async () => {
  for (const sampleRate of [16000, 22050]) {
    sessions.set(`${sampleRate}`, await ort.InferenceSession.create(buildToneVoice({ sampleRate })));
    sessions.set(
      `${sampleRate}+sid`,
      await ort.InferenceSession.create(buildToneVoice({ sampleRate, multiSpeaker: true })),
    );
  }
});
afterAll(async () => {
  for (const s of sessions.values()) await s.release();
});
const voice = (key: string): ort.InferenceSession => {
  const s = sessions.get(key);
  if (!s) throw new Error(`no session ${key}`);
  return s;
};

describe("tone voice", () => {
  test("declares Piper's inputs and output when loaded", () => {
    expect(voice("16000").inputNames).toEqual(["input", "input_lengths", "scales"]);
    expect(voice("16000+sid").inputNames).toEqual(["input", "input_lengths", "scales", "sid"]);
    expect(voice("16000").outputNames).toEqual(["output"]);
  });

  for (const sampleRate of [16000, 22050]) {
    test(`spells the ids in base-length segments when length_scale is 1 at ${sampleRate} Hz`, async () => {
      const out = await synthesize(voice(`${sampleRate}`), IDS);
      const base = toneBaseSamples(sampleRate);
      expect(out.dims).toEqual([1, 1, IDS.length * base]);
      const decoded = decodeToneAudio(samplesOf(out), sampleRate, { lengthScale: 1 });
      expect(decoded.ids).toEqual(IDS);
      expect(decoded.segmentSamples).toBe(base);
      for (const a of decoded.amplitude) expect(a).toBeCloseTo(TONE.AMPLITUDE, 4);
    });

    for (const lengthScale of [0.5, 2]) {
      test(`scales the segment length when length_scale is ${lengthScale} at ${sampleRate} Hz`, async () => {
        const out = await synthesize(voice(`${sampleRate}`), IDS, { lengthScale });
        const segment = toneBaseSamples(sampleRate) * lengthScale;
        expect(out.dims).toEqual([1, 1, IDS.length * segment]);
        // Decoded without being told the scale: the length is recovered from the audio.
        const decoded = decodeToneAudio(samplesOf(out), sampleRate);
        expect(decoded.segmentSamples).toBe(segment);
        expect(decoded.ids).toEqual(IDS);
      });
    }
  }

  test("estimates the segment length exactly when length_scale is not a round number", async () => {
    for (const lengthScale of [0.61, 0.77, 1.3, 1.85]) {
      for (const sampleRate of [16000, 22050]) {
        const audio = samplesOf(await synthesize(voice(`${sampleRate}`), IDS, { lengthScale }));
        const expected = toneSegmentSamples(toneBaseSamples(sampleRate), lengthScale);
        expect(audio.length).toBe(IDS.length * expected);
        expect(estimateSegmentSamples(audio, sampleRate)).toBe(expected);
      }
    }
  });

  test("still decodes when the audio has been quantised to 16-bit PCM", async () => {
    const audio = samplesOf(await synthesize(voice("22050"), IDS, { lengthScale: 0.8 }));
    const pcm = audio.map((v) => Math.round(v * 32767) / 32767);
    const expected = toneSegmentSamples(toneBaseSamples(22050), 0.8);
    expect(Math.abs(estimateSegmentSamples(pcm, 22050) - expected)).toBeLessThanOrEqual(1);
    expect(decodeToneAudio(pcm, 22050).ids).toEqual(IDS);
  });

  test("encodes the speaker in the amplitude when sid is given", async () => {
    for (const sid of [0, 1, 2, 7, TONE.MAX_SPEAKERS - 1]) {
      const out = await synthesize(voice("16000+sid"), IDS, { sid });
      const decoded = decodeToneAudio(samplesOf(out), 16000, { lengthScale: 1 });
      expect(decoded.ids).toEqual(IDS);
      for (const a of decoded.amplitude) {
        expect(a).toBeCloseTo(toneAmplitude(sid), 4);
        expect(sidFromAmplitude(a)).toBe(sid);
      }
    }
  });

  test("counts segments from input_lengths when it is shorter than the ids", async () => {
    const out = await synthesize(voice("16000"), IDS, { inputLength: 4 });
    expect(out.dims).toEqual([1, 1, 4 * toneBaseSamples(16000)]);
    expect(decodeToneAudio(samplesOf(out), 16000, { lengthScale: 1 }).ids).toEqual(IDS.slice(0, 4));
  });

  test("fails the run when input_lengths exceeds the ids", async () => {
    const run = synthesize(voice("16000"), IDS, { inputLength: IDS.length + 1, logSeverityLevel: 4 });
    await expect(run).rejects.toThrow(/Gather.*out of data bounds/);
  });

  test("ignores noise_scale and noise_w when they change", async () => {
    const a = samplesOf(await synthesize(voice("16000"), IDS, { noise: [0.667, 0.8] }));
    const b = samplesOf(await synthesize(voice("16000"), IDS, { noise: [0, 0] }));
    expect(b).toEqual(a);
  });

  test("keeps every id up to maxToneId distinguishable at both rates", async () => {
    for (const sampleRate of [16000, 22050]) {
      const ids = Array.from({ length: maxToneId(sampleRate) + 1 }, (_, i) => i);
      expect(ids.length).toBeGreaterThanOrEqual(64);
      expect(toneFrequency(ids.length - 1)).toBeLessThan(sampleRate / 2);
      const out = await synthesize(voice(`${sampleRate}`), ids, { lengthScale: 0.5 });
      expect(decodeToneAudio(samplesOf(out), sampleRate, { lengthScale: 0.5 }).ids).toEqual(ids);
    }
  });

  test("rounds the segment length half to even when the product is a tie", () => {
    // 1280 · 0.5 and 1764 · 0.5 are exact; 5 · 0.5 = 2.5 ties and rounds to 2, as ONNX Round does.
    expect(toneSegmentSamples(1280, 0.5)).toBe(640);
    expect(toneSegmentSamples(5, 0.5)).toBe(2);
    expect(toneSegmentSamples(7, 0.5)).toBe(4);
    expect(toneSegmentSamples(1280, 0)).toBe(1);
  });
});
