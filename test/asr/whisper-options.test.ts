/**
 * Whisper's OpenAI options on the constructed pair: `prompt` becomes previous-text context laid
 * out as the reference decoder does (`<|startofprev|>`, the prompt's last n_text_ctx/2 − 1 tokens,
 * then the task prompt), encoded by tiktoken's rank-ordered byte-pair merges; `temperature`
 * fallback re-decodes a repetitive text at 0.2 … 1.0 with seeded sampling, deterministically.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadAsrPacks, type LoadedAsrPacks } from "../../src/asr/packs.ts";
import type { Recognizer } from "../../src/asr/recognizer.ts";
import { promptWithContext, WhisperEncoder } from "../../src/asr/whisper/encode.ts";
import type { WhisperBackend } from "../../src/asr/whisper/pipeline.ts";
import { compressionRatio, needsFallback, sample, seededRandom, temperatures } from "../../src/asr/whisper/fallback.ts";
import { writeWhisperPack, type WhisperPack } from "../support/models/whisper.ts";
import { modelsDir, sine } from "./support.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("Whisper prompt encoding", () => {
  test("does merge the adjacent pair of lowest rank first, as tiktoken does", () => {
    // Ranks: a b c, then "bc" before "ab"; "abc" is not a token.
    const table = new Map([
      [0, bytes("a")],
      [1, bytes("b")],
      [2, bytes("c")],
      [3, bytes(" ")],
      [4, bytes("bc")],
      [5, bytes("ab")],
      [6, bytes(" a")],
    ]);
    const encoder = new WhisperEncoder(table);
    expect(encoder.encode("abcb")).toEqual([0, 4, 1]);
    expect(encoder.encode("ab")).toEqual([5]);
    // GPT-2 pre-tokenisation keeps the leading space with the word: " abc" → " a" + "bc".
    expect(encoder.encode(" abc")).toEqual([6, 4]);
  });

  test("does put the context after <|startofprev|> and keep only its last n_text_ctx/2 − 1 tokens", () => {
    const task = [100, 101, 102, 103];
    expect(promptWithContext(task, [1, 2, 3], 99, 448)).toEqual([99, 1, 2, 3, ...task]);
    const long = Array.from({ length: 300 }, (_, i) => i);
    expect(promptWithContext(task, long, 99, 448)).toEqual([99, ...long.slice(-223), ...task]);
    expect(promptWithContext(task, [1, 2], null, 448)).toEqual(task);
    expect(promptWithContext(task, [], 99, 448)).toEqual(task);
  });
});

describe("Whisper temperature fallback", () => {
  test("does try 0, 0.2, … 1.0, or from the temperature asked for", () => {
    expect(temperatures()).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(temperatures(0.5)).toEqual([0.5, 0.7, 0.9]);
    expect(temperatures(1)).toEqual([1]);
    expect(temperatures(Math.fround(0.2))).toEqual([0.2, 0.4, 0.6, 0.8, 1]);
  });

  test("does call a repetitive or improbable decode a failure", () => {
    expect(compressionRatio("ها".repeat(40))).toBeGreaterThan(2.4);
    expect(compressionRatio("السلام عليكم ورحمة الله")).toBeLessThan(2.4);
    expect(needsFallback(3, -0.1)).toBe(true);
    expect(needsFallback(1.2, -1.5)).toBe(true);
    expect(needsFallback(1.2, -0.5)).toBe(false);
  });

  test("does sample the same ids from the same seed and never a suppressed one", () => {
    const logits = new Float32Array([1, 2, 3, 2.5]);
    const draw = (seed: number) => {
      const random = seededRandom(seed);
      return Array.from({ length: 50 }, () => sample(logits, 1, (id) => id === 2, random));
    };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toContain(2);
    expect(new Set(draw(7)).size).toBeGreaterThan(1);
  });
});

describe("Whisper options on the constructed pair", () => {
  let models: ReturnType<typeof modelsDir>;
  let packs: LoadedAsrPacks;
  let recognizer: Recognizer;
  let pack: WhisperPack;

  beforeAll(async () => {
    models = modelsDir();
    pack = await writeWhisperPack(join(models.dir, "whisper-test"), {
      rows: ["السلام عليكم", "ها"],
      bands: [
        [0, 2000],
        [2000, 8000],
      ],
      endlessRows: [1],
    });
    packs = await loadAsrPacks(models.dir);
    recognizer = packs.recognizers.get("whisper-test")!;
  });

  afterAll(async () => {
    await packs?.release();
    models?.remove();
  });

  /** The tokens the decoder's first step is fed while `run` runs. */
  async function firstStepTokens(run: () => Promise<unknown>): Promise<number[]> {
    const backend = (recognizer as unknown as { backend: WhisperBackend }).backend;
    const encode = backend.encode;
    const fed: number[][] = [];
    // Every window decoder the recogniser makes reports what its first feed was.
    backend.encode = async (mel, frames) => {
      const windows = await encode(mel, frames);
      return () => {
        const window = windows();
        let first = true;
        return {
          feed(tokens) {
            if (first) fed.push([...tokens]);
            first = false;
            return window.feed(tokens);
          },
        };
      };
    };
    try {
      await run();
    } finally {
      backend.encode = encode;
    }
    return fed[0]!;
  }

  test("does feed the prompt as previous-text context before the task prompt", async () => {
    const v = pack.vocab;
    const task = [v.sot, v.languages.ar, v.transcribe, v.noTimestamps];
    expect(await firstStepTokens(() => recognizer.recognize(sine(500, 2)))).toEqual(task);
    // " #" is a space piece and a "#" piece in this vocabulary.
    expect(await firstStepTokens(() => recognizer.recognize(sine(500, 2), undefined, { prompt: "#" }))).toEqual([
      v.sotPrev,
      v.blank,
      v.error,
      ...task,
    ]);
    // n_text_ctx 64 keeps the last 31 context tokens.
    const long = await firstStepTokens(() =>
      recognizer.recognize(sine(500, 2), undefined, { prompt: "# ".repeat(40) }),
    );
    expect(long.length).toBe(1 + 31 + task.length);
  });

  test("does keep the greedy decode when it passes and fall back to 1.0 when the text repeats", async () => {
    const plain = await recognizer.recognize(sine(500, 2));
    expect(plain.text).toBe("السلام عليكم");
    expect(plain.decoding?.temperature).toBe(0);
    expect(plain.decoding?.avgLogprob).toBeGreaterThan(-1);
    const endless = await recognizer.recognize(sine(4000, 2));
    expect(endless.decoding?.temperature).toBe(1);
    expect(endless.decoding?.compressionRatio).toBeGreaterThan(2.4);
    expect((await recognizer.recognize(sine(4000, 2))).text).toBe(endless.text);
  });
});
