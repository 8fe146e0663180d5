import { describe, expect, test } from "bun:test";
import { prepareText } from "../frontend/index.ts";
import { TextCutter } from "./cutter.ts";

/** Pushes `pieces` one by one, then flushes; returns each cut. */
function cuts(pieces: readonly string[]): string[] {
  const cutter = new TextCutter();
  const out = pieces.map((piece) => cutter.push(piece)).filter((text) => text !== "");
  const rest = cutter.flush();
  return rest === "" ? out : [...out, rest];
}

describe("TextCutter", () => {
  test("does hand out each sentence once the word with its full stop arrives", () => {
    expect(cuts(["Hello", " world.", " How", " are", " you?", " Fine"])).toEqual([
      "Hello world.",
      " How are you?",
      " Fine",
    ]);
  });

  test("does wait when a digit precedes the full stop, as the number may go on", () => {
    const cutter = new TextCutter();
    expect(cutter.push("It costs 3.")).toBe("");
    expect(cutter.push("5 riyals. Then")).toBe("It costs 3.5 riyals.");
  });

  test("does not cut at an abbreviation or inside a word", () => {
    expect(cuts(["Dr.", " Ali", " said", " hi"])).toEqual(["Dr. Ali said hi"]);
    expect(cuts(["مرحبا", " بكم؟", " كيف", " حالك"])).toEqual(["مرحبا بكم؟", " كيف حالك"]);
  });

  test("does give the front-end the sentences the whole text splits into", () => {
    const text = "مرحبا بكم. رقم طلبك ١٢٣٤٥، شكرا لك! كيف حالك؟ مع السلامة";
    const pieces = text.split(/(?= )/u);
    const streamed = cuts(pieces).flatMap((chunk) => prepareText(chunk, "ar").map((s) => s.text));
    expect(streamed).toEqual(prepareText(text, "ar").map((s) => s.text));
  });

  test("does cut a run-on text at its last whitespace before the sentence bound", () => {
    const cutter = new TextCutter(20);
    expect(cutter.push("one two three four five six")).toBe("one two three four");
  });
});
