/**
 * Whisper runner on the constructed encoder/decoder pair (real onnxruntime sessions). Besides the
 * runner's own result, a test decoder with one fault at a time runs the same model: each fault
 * (offset, cache, suppression, prompt, per-token UTF-8) must give wrong text, which shows the
 * model really checks what the runner gets right.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { whisperLogMel } from "../../src/audio/features/whisper-mel.ts";
import { argmax } from "../../src/onnx/runner.ts";
import { packFiles } from "../../src/models/pack.ts";
import { inspectAsrPacks, loadAsrPacks, type LoadedAsrPacks } from "../../src/asr/packs.ts";
import type { Recognizer } from "../../src/asr/recognizer.ts";
import { configureWhisper } from "../../src/asr/whisper/config.ts";
import { WhisperModel } from "../../src/asr/whisper/model.ts";
import { suppression, whisperTokenBudget } from "../../src/asr/whisper/decode.ts";
import { detokenize } from "../../src/asr/whisper/tokens.ts";
import { writeWhisperPack, type WhisperPack, type WhisperScript } from "../support/models/whisper.ts";
import { modelsDir, sine } from "./support.ts";

const SCRIPT: WhisperScript = {
  rows: ["السلام عليكم ورحمة الله", "صباح الخير يا أصدقاء", "ها"],
  bands: [
    [0, 1000],
    [1000, 2500],
    [2500, 8000],
  ],
  endlessRows: [2],
};

let models: ReturnType<typeof modelsDir>;
let packs: LoadedAsrPacks;
let recognizer: Recognizer;
let model: WhisperModel;
let pack: WhisperPack;

beforeAll(async () => {
  models = modelsDir();
  pack = await writeWhisperPack(join(models.dir, "whisper-test"), SCRIPT);
  packs = await loadAsrPacks(models.dir);
  recognizer = packs.recognizers.get("whisper-test")!;
  const dir = join(models.dir, "whisper-test");
  model = await WhisperModel.load(
    configureWhisper(
      packFiles("whisper-test", dir, [
        "constructed-decoder.onnx",
        "constructed-encoder.onnx",
        "constructed-tokens.txt",
      ]),
    ),
  );
});

afterAll(async () => {
  await packs?.release();
  await model?.release();
  models?.remove();
});

/** One fault a test decoder may have. */
interface Faults {
  readonly offsetAlwaysZero?: boolean;
  readonly freshCacheEachStep?: boolean;
  readonly noSuppression?: boolean;
  readonly promptFromMetadata?: boolean;
  readonly decodeEachToken?: boolean;
}

/** A greedy decoder like the runner's, with optional faults; 40 tokens at most. */
async function faultyDecode(audio: Float32Array, faults: Faults): Promise<string> {
  const { meta, prompt, tokenBytes } = model.config;
  const firstPrompt = faults.promptFromMetadata ? [...meta.sotSequence, meta.noTimestamps] : [...prompt];
  const mel = whisperLogMel(audio, { nMels: meta.nMels });
  const cross = await model.encode(mel.data, mel.nFrames);
  const suppress = suppression(meta);
  const pick = (logits: Float32Array, first: boolean) =>
    argmax(logits, 0, logits.length, faults.noSuppression ? undefined : first ? suppress.first : suppress.later);
  let step = await model.step(firstPrompt, model.emptyCache(), cross, 0);
  let offset = firstPrompt.length;
  let next = pick(step.logits, true);
  const ids: number[] = [];
  while (next !== meta.eot && ids.length < 40) {
    ids.push(next);
    const cache = faults.freshCacheEachStep ? model.emptyCache() : step.cache;
    step = await model.step([next], cache, cross, faults.offsetAlwaysZero ? 0 : offset);
    offset++;
    next = pick(step.logits, false);
  }
  if (faults.decodeEachToken)
    return ids
      .map((id) => detokenize([id], tokenBytes))
      .join("")
      .trim();
  return detokenize(ids, tokenBytes).trim();
}

describe("Whisper runner", () => {
  test("does transcribe the row its audio selects when run on the constructed pair", async () => {
    expect((await recognizer.recognize(sine(500, 2))).text).toBe(SCRIPT.rows[0]!);
    expect((await recognizer.recognize(sine(1500, 2))).text).toBe(SCRIPT.rows[1]!);
  });

  test("does split Arabic letters across tokens in the constructed vocabulary", () => {
    const strict = new TextDecoder("utf-8", { fatal: true });
    const broken = pack.vocab.rowIds[0]!.filter((id) => {
      try {
        strict.decode(pack.vocab.pieces[id]);
        return false;
      } catch {
        return true;
      }
    });
    expect(broken.length).toBeGreaterThan(3);
  });

  test("does stop a decoder that never ends at the token budget", async () => {
    const text = (await recognizer.recognize(sine(4000, 2))).text;
    const budget = whisperTokenBudget(2, 64);
    // "ها" is four bytes split into a 3-byte and a 1-byte token: two tokens per repetition.
    expect(text).toBe("ها".repeat(budget / 2));
  });

  test("does give the right text with a faultless test decoder", async () => {
    expect(await faultyDecode(sine(500, 2), {})).toBe(SCRIPT.rows[0]!);
  });

  test.each([
    ["the offset stays 0", { offsetAlwaysZero: true }],
    ["the self caches are not carried between steps", { freshCacheEachStep: true }],
    ["blank, eot and special tokens are not suppressed", { noSuppression: true }],
    ["the prompt keeps the metadata's language instead of Arabic", { promptFromMetadata: true }],
    ["each token's bytes are decoded on their own", { decodeEachToken: true }],
  ] as [string, Faults][])("does give wrong text when %s", async (_what, faults) => {
    expect(await faultyDecode(sine(500, 2), faults)).not.toBe(SCRIPT.rows[0]!);
  });
});

describe("Whisper packs", () => {
  test("does read n_mels from the metadata when the model takes 128 mel bins", async () => {
    const dir = modelsDir();
    try {
      await writeWhisperPack(join(dir.dir, "large"), { ...SCRIPT, nMels: 128 }, "large-v3");
      const loaded = await loadAsrPacks(dir.dir);
      try {
        expect((await loaded.recognizers.get("large")!.recognize(sine(1500, 1))).text).toBe(SCRIPT.rows[1]!);
      } finally {
        await loaded.release();
      }
    } finally {
      dir.remove();
    }
  });

  test("does report English-only, incomplete and inconsistent packs and skip them", async () => {
    const dir = modelsDir();
    try {
      await writeWhisperPack(
        join(dir.dir, "english"),
        { ...SCRIPT, metadata: { is_multilingual: 0, all_language_codes: "en", all_language_tokens: "0" } },
        "tiny.en",
      );
      await writeWhisperPack(join(dir.dir, "no-decoder"), SCRIPT, "base");
      await Bun.file(join(dir.dir, "no-decoder", "base-decoder.onnx")).delete();
      const scan = inspectAsrPacks(dir.dir);
      expect(scan.usable).toEqual([]);
      const reasons = Object.fromEntries(scan.broken.map((b) => [b.pack, b.reason]));
      expect(reasons.english).toContain("English-only");
      expect(reasons["no-decoder"]).toBe("missing base-decoder.onnx");
    } finally {
      dir.remove();
    }
  });
});
