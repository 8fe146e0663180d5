/**
 * NeMo CTC runner on the constructed tone recogniser (real onnxruntime sessions): the text, the
 * word times, and proof that the model punishes a runner that gets blank, repeats or `length`
 * wrong (deliberately wrong decoders below give wrong text on the same model output).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { configureCtc } from "../../src/asr/ctc/config.ts";
import { CtcModel } from "../../src/asr/ctc/model.ts";
import { ctcText, greedyCtc, type CtcToken } from "../../src/asr/ctc/pipeline.ts";
import { nemoFbank } from "../../src/audio/features/fbank.ts";
import { argmax } from "../../src/onnx/runner.ts";
import { packFiles } from "../../src/models/pack.ts";
import { inspectAsrPacks, loadAsrPacks, type LoadedAsrPacks } from "../../src/asr/packs.ts";
import type { Recognizer } from "../../src/asr/recognizer.ts";
import { ctcTokens, letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { writeSherpaVitsPack } from "../support/models/tone-voice.ts";
import { modelsDir } from "./support.ts";

const TEXT = "سلام عليكم ورحمة الله";

let models: ReturnType<typeof modelsDir>;
let packs: LoadedAsrPacks;
let recognizer: Recognizer;
let model: CtcModel;

beforeAll(async () => {
  models = modelsDir();
  await writeToneCtcPack(join(models.dir, "tone-ctc"));
  packs = await loadAsrPacks(models.dir);
  recognizer = packs.recognizers.get("tone-ctc")!;
  model = await CtcModel.load(
    configureCtc(packFiles("tone-ctc", join(models.dir, "tone-ctc"), ["model.onnx", "tokens.txt"])),
  );
});

afterAll(async () => {
  await packs?.release();
  await model?.release();
  models?.remove();
});

async function modelOutput(audio: Float32Array, length?: number) {
  const features = nemoFbank(audio, { normalize: "none" });
  return model.run(features.data, features.nFrames, length ?? features.validFrames);
}

describe("NeMo CTC runner", () => {
  test("does read tone speech back as its letters when run on the constructed recogniser", async () => {
    expect((await recognizer.recognize(letterToneAudio(TEXT))).text).toBe(TEXT);
  });

  test("does keep doubled letters apart when Piper's pad separates them", async () => {
    expect((await recognizer.recognize(letterToneAudio("الله"))).text).toBe("الله");
  });

  test("does give word times from the frames the words were emitted on", async () => {
    const { words } = await recognizer.recognize(letterToneAudio("سلام عليكم"));
    // ^ _ then 4 letters with pads: the first word starts at segment 2 (0.16 s), the second at
    // segment 12 (0.96 s); times come in 40 ms output frames (10 ms hop × subsampling 4).
    expect(words!.map((w) => w.word)).toEqual(["سلام", "عليكم"]);
    expect(words![0]!.start).toBeCloseTo(0.16, 5);
    expect(words![1]!.start).toBeCloseTo(0.96, 5);
    expect(words![0]!.end).toBeGreaterThan(words![0]!.start);
    expect(words![0]!.end).toBeLessThanOrEqual(words![1]!.start);
  });

  test("does read the same text when the voice speaks faster or slower", async () => {
    for (const scale of [0.5, 0.75, 1.5, 2])
      expect((await recognizer.recognize(letterToneAudio(TEXT, 16000, scale))).text).toBe(TEXT);
  });

  test("does give wrong text when a decoder takes id 0 as the blank", async () => {
    const output = await modelOutput(letterToneAudio(TEXT));
    const tokens = ctcTokens();
    expect(ctcText(greedyCtc(output, tokens.length - 1), tokens, 0.04).text).toBe(TEXT);
    expect(ctcText(greedyCtc(output, 0), tokens, 0.04).text).not.toBe(TEXT);
  });

  test("does give wrong text when a decoder does not collapse repeats", async () => {
    const output = await modelOutput(letterToneAudio(TEXT));
    const tokens = ctcTokens();
    const blank = tokens.length - 1;
    const naive: CtcToken[] = [];
    for (let t = 0; t < output.frames; t++) {
      const id = argmax(output.logprobs, t * output.vocab, (t + 1) * output.vocab);
      if (id !== blank) naive.push({ id, frame: t });
    }
    expect(ctcText(naive, tokens, 0.04).text).not.toBe(TEXT);
  });

  test("does lose the end of the text when the length input is wrong", async () => {
    const audio = letterToneAudio(TEXT);
    const features = nemoFbank(audio, { normalize: "none" });
    const output = await modelOutput(audio, Math.floor(features.validFrames / 2));
    const tokens = ctcTokens();
    const text = ctcText(greedyCtc(output, tokens.length - 1), tokens, 0.04).text;
    expect(text.length).toBeLessThan(TEXT.length);
    expect(TEXT.startsWith(text)).toBe(true);
  });

  test("does not take a sherpa-onnx VITS voice for a recogniser when both have model.onnx and tokens.txt", async () => {
    const dir = modelsDir();
    try {
      await writeSherpaVitsPack(join(dir.dir, "vits-voice"), { sampleRate: 16000, phonemeIdMap: { a: 4 } });
      const scan = inspectAsrPacks(dir.dir);
      expect(scan.usable).toEqual([]);
      expect(scan.broken).toEqual([]);
    } finally {
      dir.remove();
    }
  });

  test("does report a CTC pack whose tokens.txt does not match the model and skip it", async () => {
    const dir = modelsDir();
    try {
      await writeToneCtcPack(join(dir.dir, "short-vocab"));
      await Bun.write(join(dir.dir, "short-vocab", "tokens.txt"), "▁ 0\nا 1\n<blk> 2\n");
      await Bun.write(join(dir.dir, "garbage", "model.onnx"), "not a model");
      await Bun.write(join(dir.dir, "garbage", "tokens.txt"), "▁ 0\n<blk> 1\n");
      const scan = inspectAsrPacks(dir.dir);
      expect(scan.usable).toEqual([]);
      expect(scan.broken.map((b) => [b.pack, b.family])).toEqual([
        ["garbage", "nemo-ctc"],
        ["short-vocab", "nemo-ctc"],
      ]);
      expect(scan.broken[1]!.reason).toContain("logprobs has 28 classes but tokens.txt lists 3");
      expect(scan.broken[0]!.reason).toContain("not a valid ONNX model");
    } finally {
      dir.remove();
    }
  });
});
