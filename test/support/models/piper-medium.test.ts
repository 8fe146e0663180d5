import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { readOnnxModelInfoFile } from "../../../src/onnx/metadata.ts";
import { tempDir } from "../sawt.ts";
import { expectedSamples, framesPerId, type PiperMediumPacks, writePiperMediumPacks } from "./piper-medium.ts";

const dir = tempDir("sawt-piper-medium-");
let packs: PiperMediumPacks;
let session: ort.InferenceSession;

beforeAll(async () => {
  const dirs = { piper: join(dir.path, "piper"), sherpa: join(dir.path, "sherpa") };
  packs = await writePiperMediumPacks(dirs, { phonemeIdMap: { a: 4, b: 5, ʔ: 6, ː: 40 } });
  session = await ort.InferenceSession.create(packs.piper.modelPath, { intraOpNumThreads: 1 });
});
afterAll(async () => {
  await session?.release();
  dir.remove();
});

async function speak(ids: readonly number[], lengthScale: number, inputLength = ids.length): Promise<Float32Array> {
  const out = await session.run({
    input: new ort.Tensor("int64", BigInt64Array.from(ids, BigInt), [1, ids.length]),
    input_lengths: new ort.Tensor("int64", BigInt64Array.of(BigInt(inputLength)), [1]),
    scales: new ort.Tensor("float32", Float32Array.of(0.667, lengthScale, 0.8), [3]),
  });
  const output = out.output as ort.Tensor;
  expect(output.dims.slice(0, 2)).toEqual([1, 1]);
  return output.data as Float32Array;
}

function expectAudible(audio: Float32Array): void {
  let peak = 0;
  let energy = 0;
  let nonFinite = 0;
  for (const x of audio) {
    if (!Number.isFinite(x)) nonFinite++;
    peak = Math.max(peak, Math.abs(x));
    energy += x * x;
  }
  expect(nonFinite).toBe(0);
  expect(peak).toBeLessThanOrEqual(1);
  // Not silent and not a saturated square wave: the random weights stay in tanh's working range.
  expect(Math.sqrt(energy / audio.length)).toBeGreaterThan(0.01);
  expect(peak).toBeLessThan(0.999);
}

describe("the Piper-medium-shaped voice", () => {
  test("does weigh about 60 MB with Piper medium's parameter count", () => {
    expect(packs.parameters).toBeGreaterThan(14e6);
    expect(packs.parameters).toBeLessThan(16.5e6);
    expect(packs.modelBytes).toBeGreaterThan(4 * packs.parameters);
    expect(statSync(packs.piper.modelPath).size).toBe(packs.modelBytes);
    expect(statSync(packs.sherpa.modelPath).size).toBeGreaterThan(55e6);
    expect(statSync(packs.sherpa.modelPath).size).toBeLessThan(66e6);
  });

  test("does make frames · 256 samples of finite audio per id, scaled by length_scale", async () => {
    const ids = [1, 0, 4, 0, 5, 3, 6, 0, 40, 0, 2];
    for (const lengthScale of [1, 1.5, 0.5]) {
      const audio = await speak(ids, lengthScale);
      expect(audio.length).toBe(expectedSamples(ids.length, lengthScale));
      expect(audio.length).toBe(ids.length * framesPerId(lengthScale) * 256);
      expectAudible(audio);
    }
    // round-half-even as ONNX Round: 3 · 1.5 = 4.5 → 4 frames, 3 · 0.5 = 1.5 → 2.
    expect([framesPerId(1), framesPerId(1.5), framesPerId(0.5)]).toEqual([3, 4, 2]);
  });

  test("does read only input_lengths ids, as Piper does", async () => {
    expect((await speak([1, 0, 4, 0, 2, 9, 9], 1, 5)).length).toBe(expectedSamples(5, 1));
  });

  test("does carry the Piper contract and sherpa-onnx's VITS metadata", () => {
    const info = readOnnxModelInfoFile(packs.sherpa.modelPath);
    expect(info.inputs.map((i) => [i.name, i.elemType])).toEqual([
      ["input", "int64"],
      ["input_lengths", "int64"],
      ["scales", "float32"],
    ]);
    expect(info.outputs.map((o) => o.name)).toEqual(["output"]);
    expect(info.metadata).toMatchObject({ model_type: "vits", comment: "piper", voice: "ar", sample_rate: "22050" });
    const config = packs.piper.config as { audio: { sample_rate: number }; espeak: { voice: string } };
    expect(config.audio.sample_rate).toBe(22050);
    expect(config.espeak.voice).toBe("ar");
    expect(config).toMatchObject({ num_symbols: 130, phoneme_type: "espeak" });
  });
});
