import { describe, expect, test } from "bun:test";
import { codePointLength, prepareText } from "./index.ts";

describe("prepareText", () => {
  test("normalises, reads numbers and splits when given raw Arabic text", () => {
    const sentences = prepareText("  رصيدكـــم ١٥٠ ريال.   شكرًا لاتصالكم،\r\nمع السلامة  ", "ar");
    expect(sentences.map((s) => s.text)).toEqual(["رصيدكم مئة وخمسون ريالًا.", "شكرًا لاتصالكم،", "مع السلامة"]);
  });

  test("does not split a decimal when numbers are read before splitting", () => {
    const sentences = prepareText("The rate is 3.5. Thanks!", "en");
    expect(sentences.map((s) => s.text)).toEqual(["The rate is three point five.", "Thanks!"]);
  });

  test("returns no sentences when the text is empty after normalisation", () => {
    expect(prepareText(" \u0640 ", "ar")).toEqual([]);
  });

  test("honours the sentence bound when one is given", () => {
    const sentences = prepareText("word ".repeat(100), "en", { maxSentenceChars: 50 });
    for (const s of sentences) expect(codePointLength(s.text)).toBeLessThanOrEqual(50);
  });
});

describe("codePointLength", () => {
  test("counts supplementary characters once when measuring input", () => {
    expect(codePointLength("abc")).toBe(3);
    expect(codePointLength("مرحبا")).toBe(5);
    expect(codePointLength("😀👍")).toBe(2);
    expect(codePointLength("\uD800x")).toBe(2); // a lone surrogate is one code unit and one point
  });
});
