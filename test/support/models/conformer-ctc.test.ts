/**
 * The realistic-cost Conformer-CTC recogniser honours the NeMo CTC contract Sawt reads: its pack
 * folder is claimed and loaded by the nemo-ctc family unchanged, its frames follow NeMo's
 * subsampling arithmetic, its log-probabilities are normalised and padded frames are masked.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { configureCtc } from "../../../src/asr/ctc/config.ts";
import { CtcModel } from "../../../src/asr/ctc/model.ts";
import { loadAsrPacks, type LoadedAsrPacks } from "../../../src/asr/packs.ts";
import { packFiles } from "../../../src/models/pack.ts";
import { modelsDir, sine } from "../../asr/support.ts";
import { CONFORMER_SUBSAMPLING, conformerFrames, conformerTokens, writeConformerCtcPack } from "./conformer-ctc.ts";

let models: ReturnType<typeof modelsDir>;
let packs: LoadedAsrPacks;
let model: CtcModel;
let built: { bytes: number };

beforeAll(async () => {
  models = modelsDir();
  built = await writeConformerCtcPack(join(models.dir, "conformer-ctc"));
  packs = await loadAsrPacks(models.dir);
  const config = configureCtc(
    packFiles("conformer-ctc", join(models.dir, "conformer-ctc"), ["model.onnx", "tokens.txt"]),
  );
  model = await CtcModel.load(config);
});

afterAll(async () => {
  await packs?.release();
  await model?.release();
  models?.remove();
});

const randomFeatures = (frames: number) => Float32Array.from({ length: 80 * frames }, (_, i) => Math.sin(i * 0.37));

describe("constructed Conformer-CTC recogniser", () => {
  test("does weigh 70–90 MB and serve through Sawt's nemo-ctc family unchanged", async () => {
    expect(built.bytes).toBe(statSync(join(models.dir, "conformer-ctc", "model.onnx")).size);
    expect(built.bytes).toBeGreaterThan(70e6);
    expect(built.bytes).toBeLessThan(90e6);
    expect(packs.broken).toEqual([]);
    expect(packs.packs.map((p) => [p.name, p.family])).toEqual([["conformer-ctc", "nemo-ctc"]]);
    const recognizer = packs.recognizers.get("conformer-ctc")!;
    const result = await recognizer.recognize(sine(300, 1.5));
    expect(typeof result.text).toBe("string");
    expect(model.config.blankId).toBe(conformerTokens().length - 1);
    expect(model.config.subsamplingFactor).toBe(CONFORMER_SUBSAMPLING);
    expect(model.config.normalize).toBe("per_feature");
  });

  test("does give NeMo's subsampled frame count and normalised log-probabilities for any length", async () => {
    for (const frames of [1, 2, 3, 4, 5, 9, 101]) {
      const out = await model.run(randomFeatures(frames), frames, frames);
      expect(out.frames).toBe(conformerFrames(frames));
      expect(out.frames).toBe(Math.ceil(frames / 4));
      expect(out.vocab).toBe(129);
      for (let t = 0; t < out.frames; t++) {
        let sum = 0;
        for (let v = 0; v < out.vocab; v++) sum += Math.exp(out.logprobs[t * out.vocab + v]!);
        expect(Math.abs(sum - 1)).toBeLessThan(1e-4);
      }
    }
  });

  test("does ignore padded frames past length, as NeMo's masks do", async () => {
    const frames = 200;
    const features = randomFeatures(frames);
    const padded = features.slice();
    // Change only frames at or past length 120 (the layout is [80, frames]).
    for (let m = 0; m < 80; m++) for (let t = 120; t < frames; t++) padded[m * frames + t] = 5;
    const a = await model.run(features, frames, 120);
    const b = await model.run(padded, frames, 120);
    // Valid output frame j sees input frames 4j − 3 … 4j + 3 through the subsampling, all below
    // 120; attention and the depthwise convolution never see padded frames.
    const valid = conformerFrames(120) * 129;
    let largest = 0;
    for (let i = 0; i < valid; i++) largest = Math.max(largest, Math.abs(a.logprobs[i]! - b.logprobs[i]!));
    expect(largest).toBeLessThan(1e-4);
    // The padded frames themselves do change: the test would notice a model ignoring its input.
    expect(Array.from(a.logprobs.subarray(valid))).not.toEqual(Array.from(b.logprobs.subarray(valid)));
  });
});
