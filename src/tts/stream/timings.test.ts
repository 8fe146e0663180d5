import { describe, expect, test } from "bun:test";
import { sentenceTimings } from "./timings.ts";

describe("sentenceTimings", () => {
  test("does share a sentence's audio among its words by phoneme count when the model reports no durations", () => {
    // "ab cdef": 2 and 4 phonemes → a third and two thirds of 600 samples at 1 kHz.
    const timings = sentenceTimings("ab cdef", 600, 1000, 100, { phonemes: ["a", "b", " ", "c", "d", "e", "f"] });
    expect(timings.estimated).toBe(true);
    expect(timings.chars.join("")).toBe("ab cdef");
    expect(timings.words).toEqual([
      { word: "ab", startMs: 100, endMs: 300 },
      { word: "cdef", startMs: 300, endMs: 700 },
    ]);
    const starts = timings.charStartMs;
    for (let i = 1; i < starts.length; i++) expect(starts[i]!).toBeGreaterThan(starts[i - 1]!);
  });

  test("does take words' times from the model's durations, the end symbol's time given to the last word", () => {
    const timings = sentenceTimings("ab cd", 1000, 1000, 0, {
      phonemes: ["a", "b", " ", "c", "d"],
      durations: [100, 100, 50, 200, 200],
      lead: 150,
    });
    expect(timings.estimated).toBe(false);
    expect(timings.words).toEqual([
      { word: "ab", startMs: 150, endMs: 400 },
      { word: "cd", startMs: 400, endMs: 1000 },
    ]);
  });

  test("does fall back to letter counts when its phonemes cannot be paired with its words", () => {
    const timings = sentenceTimings("one two", 700, 1000, 0, { phonemes: ["w", "ʌ", "n"] });
    expect(timings.estimated).toBe(true);
    expect(timings.words.map((w) => Math.round(w.endMs - w.startMs))).toEqual([400, 300]);
  });
});
