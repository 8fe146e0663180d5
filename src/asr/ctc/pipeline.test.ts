import { describe, expect, test } from "bun:test";
import { PackError } from "../../models/errors.ts";
import { parseCtcTokens } from "./config.ts";
import { ctcText, greedyCtc } from "./pipeline.ts";

/** Log-probabilities favouring `ids` frame by frame. */
function frames(ids: number[], vocab: number) {
  const logprobs = new Float32Array(ids.length * vocab).fill(-10);
  ids.forEach((id, t) => (logprobs[t * vocab + id] = 0));
  return { logprobs, frames: ids.length, vocab };
}

describe("greedy CTC", () => {
  const table = ["<unk>", "▁مر", "حبا", "▁بكم", "ا", "<blk>"];

  test("does collapse repeats, drop blanks and keep a letter repeated across a blank", () => {
    const tokens = greedyCtc(frames([5, 4, 4, 5, 4, 5, 5], 6), 5);
    expect(tokens.map((t) => t.id)).toEqual([4, 4]);
    expect(tokens.map((t) => t.frame)).toEqual([1, 4]);
  });

  test("does turn ▁ into word boundaries and control tokens into nothing", () => {
    const text = ctcText(
      [
        { id: 1, frame: 0 },
        { id: 2, frame: 2 },
        { id: 0, frame: 3 },
        { id: 3, frame: 5 },
      ],
      table,
      0.04,
    );
    expect(text.text).toBe("مرحبا بكم");
    expect(text.words).toEqual([
      { word: "مرحبا", start: 0, end: 0.12 },
      { word: "بكم", start: 0.2, end: 0.24 },
    ]);
  });

  test("does read tokens.txt with the blank last and refuse gaps", () => {
    expect(parseCtcTokens("▁ 0\nا 1\n<blk> 2\n")).toEqual(["▁", "ا", "<blk>"]);
    expect(() => parseCtcTokens("▁ 0\n<blk> 2\n")).toThrow(PackError);
  });
});
