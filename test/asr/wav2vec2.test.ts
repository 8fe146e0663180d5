/**
 * wav2vec2-family CTC (wav2vec2, HuBERT, XLS-R, MMS) in the Hugging Face layout on constructed
 * packs built from the publishers' contract (test/support/models/wav2vec2.ts cites the
 * transformers.js sources): the characters come out with `|` as the word break, the pad token as
 * blank (at id 2, not 0), repeats collapsed only without a blank between, word times from CTC
 * frames (320 samples each), input normalised exactly when preprocessor_config.json says so, and
 * an MMS vocabulary's Arabic table. A decode with one thing wrong at a time comes out wrong.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ctcText, greedyCtc } from "../../src/asr/ctc/pipeline.ts";
import { inspectAsrPacks, loadAsrPacks, type LoadedAsrPacks } from "../../src/asr/packs.ts";
import { configureWav2Vec2 } from "../../src/asr/wav2vec2/config.ts";
import { normalizeInput } from "../../src/asr/wav2vec2/pipeline.ts";
import { packFiles } from "../../src/models/pack.ts";
import { packTree } from "../../src/models/scan.ts";
import { argmax, f32, floatData, i64, openSession } from "../../src/onnx/runner.ts";
import { spellAudio, writeWav2Vec2Pack } from "../support/models/wav2vec2.ts";
import { modelsDir } from "./support.ts";

const TEXT = "الله سلام";
let models: ReturnType<typeof modelsDir>;
let packs: LoadedAsrPacks;

beforeAll(async () => {
  models = modelsDir();
  await writeWav2Vec2Pack(join(models.dir, "hubert-ar"));
  await writeWav2Vec2Pack(join(models.dir, "mms-ar"), { mms: true, folder: "onnx/", suffix: "_quantized" });
  await writeWav2Vec2Pack(join(models.dir, "xlsr-raw"), { normalize: false });
  packs = await loadAsrPacks(models.dir);
});

afterAll(async () => {
  await packs?.release();
  models?.remove();
});

describe("wav2vec2-family CTC in the Hugging Face layout", () => {
  test("does claim every layout as wav2vec2-ctc and leave none broken", () => {
    const scan = inspectAsrPacks(models.dir);
    expect(scan.broken).toEqual([]);
    expect(scan.usable.map((p) => [p.name, p.family])).toEqual([
      ["hubert-ar", "wav2vec2-ctc"],
      ["mms-ar", "wav2vec2-ctc"],
      ["xlsr-raw", "wav2vec2-ctc"],
    ]);
  });

  test.each(["hubert-ar", "mms-ar", "xlsr-raw"])("does spell the words with CTC frame times on %s", async (name) => {
    const result = await packs.recognizers.get(name)!.recognize(spellAudio(TEXT));
    expect(result.text).toBe(TEXT);
    expect(result.words).toEqual([
      { word: "الله", start: 0.1, end: 0.42 },
      { word: "سلام", start: 0.6, end: 0.92 },
    ]);
  });

  test("does refuse an MMS vocabulary without Arabic and a vocabulary without its pad token", async () => {
    const dir = join(models.dir, "..", "mms-broken");
    await writeWav2Vec2Pack(dir, { mms: true });
    await Bun.write(join(dir, "vocab.json"), JSON.stringify({ eng: { a: 0 }, fra: { a: 0 } }));
    expect(() => configureWav2Vec2(packFiles("mms-broken", dir, packTree(dir)))).toThrow(/not Arabic/);
    await Bun.write(join(dir, "vocab.json"), JSON.stringify({ ا: 0, "|": 1 }));
    expect(() => configureWav2Vec2(packFiles("mms-broken", dir, packTree(dir)))).toThrow(/pad/);
  });
});

/** Best non-blank token of every frame, repeats kept. */
function perFrame(output: { logprobs: Float32Array; frames: number; vocab: number }, blank: number) {
  const tokens: { id: number; frame: number }[] = [];
  for (let frame = 0; frame < output.frames; frame++) {
    const id = argmax(output.logprobs, frame * output.vocab, (frame + 1) * output.vocab);
    if (id !== blank) tokens.push({ id, frame });
  }
  return tokens;
}

/** A decode of the spelled text on `name` with one fault. */
async function faultyDecode(
  name: string,
  fault: "none" | "no-normalize" | "normalize" | "blank-0" | "no-delimiter" | "no-collapse" | "merge-across-blank",
) {
  const dir = join(models.dir, name);
  const config = configureWav2Vec2(packFiles(name, dir, packTree(dir)));
  const { session } = await openSession(config.modelPath);
  try {
    const audio = spellAudio(TEXT);
    const normalize = fault === "no-normalize" ? false : fault === "normalize" ? true : config.normalize;
    const input = normalize ? normalizeInput(audio) : audio;
    const out = await session.run({
      input_values: f32(input, [1, input.length]),
      attention_mask: i64(new BigInt64Array(input.length).fill(1n), [1, input.length]),
    });
    const [, frames = 0, vocab = 0] = out.logits!.dims;
    const output = { logprobs: floatData(out.logits, "logits"), frames, vocab };
    const blank = fault === "blank-0" ? 0 : config.blankId;
    let tokens = greedyCtc(output, blank);
    // Every non-blank frame as a token (repeats not collapsed), or repeats merged across blanks.
    if (fault === "no-collapse") tokens = perFrame(output, blank);
    if (fault === "merge-across-blank") tokens = tokens.filter((t, i) => i === 0 || t.id !== tokens[i - 1]!.id);
    const pieces = fault === "no-delimiter" ? config.pieces.map((p) => (p === "▁" ? "|" : p)) : config.pieces;
    return ctcText(tokens, pieces, 0.02).text;
  } finally {
    await session.release();
  }
}

describe("a CTC decode that gets one thing wrong", () => {
  test("does give the right text without a fault", async () => {
    expect(await faultyDecode("hubert-ar", "none")).toBe(TEXT);
    expect(await faultyDecode("xlsr-raw", "none")).toBe(TEXT);
  });

  test.each([
    ["the input is not normalised", "hubert-ar", "no-normalize"],
    ["the input is normalised against the pack's preprocessor", "xlsr-raw", "normalize"],
    ["blank is taken as id 0", "hubert-ar", "blank-0"],
    ["the word delimiter is kept as a character", "hubert-ar", "no-delimiter"],
    ["repeats are not collapsed", "hubert-ar", "no-collapse"],
    ["repeats are merged across a blank", "hubert-ar", "merge-across-blank"],
  ] as const)("does give wrong text when %s", async (_, pack, fault) => {
    expect(await faultyDecode(pack, fault)).not.toBe(TEXT);
  });
});
