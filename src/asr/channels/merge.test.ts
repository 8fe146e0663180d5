import { describe, expect, test } from "bun:test";
import type { Transcript } from "../types.ts";
import { mergeChannels } from "./merge.ts";

function transcript(dialect: string | null, segments: Array<[number, number, string]>): Transcript {
  return {
    text: segments.map((s) => s[2]).join(" "),
    language: "ar",
    dialect,
    duration: 10,
    segments: segments.map(([start, end, text], id) => ({
      id,
      start,
      end,
      text,
      words: [{ word: text, start, end }],
    })),
    words: segments.map(([start, end, text]) => ({ word: text, start, end })),
    model: "tone-ctc",
  };
}

describe("mergeChannels", () => {
  test("does merge segments and words in time order with their channel's label and renumbered ids", () => {
    const merged = mergeChannels([
      {
        channel: 0,
        speaker: "agent",
        transcript: transcript("ar-najdi", [
          [0.5, 1, "أ"],
          [4, 5, "ج"],
        ]),
      },
      {
        channel: 1,
        speaker: "customer",
        transcript: transcript("ar-egyptian", [
          [2, 3, "ب"],
          [4, 4.5, "د"],
        ]),
      },
    ]);
    expect(merged.segments.map((s) => [s.id, s.speaker, s.channel, s.text])).toEqual([
      [0, "agent", 0, "أ"],
      [1, "customer", 1, "ب"],
      [2, "agent", 0, "ج"],
      [3, "customer", 1, "د"],
    ]);
    expect(merged.words?.map((w) => [w.word, w.speaker])).toEqual([
      ["أ", "agent"],
      ["ب", "customer"],
      ["ج", "agent"],
      ["د", "customer"],
    ]);
    expect(merged.segments[1]!.words).toEqual([{ word: "ب", start: 2, end: 3, channel: 1, speaker: "customer" }]);
    expect(merged.text).toBe("أ ب ج د");
    expect(merged.channels?.map((c) => [c.speaker, c.text, c.dialect])).toEqual([
      ["agent", "أ ج", "ar-najdi"],
      ["customer", "ب د", "ar-egyptian"],
    ]);
  });

  test("does take the first channel with a dialect as the call's dialect when the first has none", () => {
    const merged = mergeChannels([
      { channel: 0, speaker: "ch0", transcript: transcript(null, []) },
      { channel: 1, speaker: "ch1", transcript: transcript("ar-hijazi", [[1, 2, "ب"]]) },
    ]);
    expect(merged.dialect).toBe("ar-hijazi");
    expect(merged.model).toBe("tone-ctc");
  });
});
