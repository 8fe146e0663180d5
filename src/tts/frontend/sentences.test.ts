import { describe, expect, test } from "bun:test";
import { codePointLength } from "./length.ts";
import { splitClauses, splitSentences } from "./sentences.ts";

describe("splitClauses", () => {
  test("keeps each punctuation mark with its clause when Arabic punctuation is used", () => {
    expect(splitClauses("مرحبا، كيف حالك؟ أنا بخير؛ شكرا.")).toEqual([
      { text: "مرحبا،", terminator: "،", endsSentence: false },
      { text: "كيف حالك؟", terminator: "؟", endsSentence: true },
      { text: "أنا بخير؛", terminator: "؛", endsSentence: false },
      { text: "شكرا.", terminator: ".", endsSentence: true },
    ]);
  });

  test("splits Latin clauses when marks are followed by whitespace", () => {
    const clauses = splitClauses("Hello, world! Note: ok; really?! Yes");
    expect(clauses.map((c) => c.text)).toEqual(["Hello,", "world!", "Note:", "ok;", "really?!", "Yes"]);
    expect(clauses.map((c) => c.terminator)).toEqual([",", "!", ":", ";", "?!", ""]);
  });

  test("does not split when the mark is inside a number, address or abbreviation", () => {
    expect(splitClauses("Pay 3.5 or 1,000 at 14:30 to a@b.com now.")).toHaveLength(1);
    expect(splitClauses("قابل د. أحمد اليوم.")).toHaveLength(1);
    expect(splitClauses("Dr. Smith and Mr. Jones, e.g. here.").map((c) => c.text)).toEqual([
      "Dr. Smith and Mr. Jones,",
      "e.g. here.",
    ]);
    expect(splitClauses("المبلغ 20 ر.س فقط")).toHaveLength(1);
  });

  test("ends a sentence when a line breaks without punctuation", () => {
    expect(splitClauses("first line\nsecond, line")).toEqual([
      { text: "first line", terminator: "", endsSentence: true },
      { text: "second,", terminator: ",", endsSentence: false },
      { text: "line", terminator: "", endsSentence: true },
    ]);
  });

  test("keeps closing quotes with the clause when they follow the mark", () => {
    expect(splitClauses('He said "stop." Then left.').map((c) => c.text)).toEqual(['He said "stop."', "Then left."]);
  });

  test("hard-splits at whitespace when a clause has no punctuation for too long", () => {
    const words = Array.from({ length: 50 }, (_, i) => `word${i}`).join(" ");
    const clauses = splitClauses(words, 40);
    expect(clauses.length).toBeGreaterThan(1);
    for (const c of clauses) expect(codePointLength(c.text)).toBeLessThanOrEqual(40);
    expect(clauses.map((c) => c.text).join(" ")).toBe(words);
  });

  test("cuts inside a word without separating diacritics when no whitespace exists", () => {
    const clauses = splitClauses("بَ".repeat(30), 7);
    for (const c of clauses) {
      expect(codePointLength(c.text)).toBeLessThanOrEqual(7);
      expect(c.text.startsWith("\u064E")).toBe(false);
    }
    expect(clauses.map((c) => c.text).join("")).toBe("بَ".repeat(30));
  });

  test("returns nothing when the text is blank", () => {
    expect(splitClauses("  \n \n")).toEqual([]);
  });
});

describe("splitSentences", () => {
  test("groups clauses into sentences when a sentence mark is reached", () => {
    const sentences = splitSentences("مرحبا، كيف حالك؟ أنا بخير.");
    expect(sentences.map((s) => s.text)).toEqual(["مرحبا، كيف حالك؟", "أنا بخير."]);
    expect(sentences[0]!.clauses).toHaveLength(2);
    expect(sentences[0]!.terminator).toBe("؟");
  });

  test("bounds every sentence when a 51,200-code-point input has no punctuation", () => {
    const text = "كلمة ".repeat(10_240).trim(); // 51,199 code points
    const started = performance.now();
    const sentences = splitSentences(text, 400);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(sentences.length).toBeGreaterThan(100);
    for (const s of sentences) expect(codePointLength(s.text)).toBeLessThanOrEqual(400);
    expect(sentences.map((s) => s.text).join(" ")).toBe(text);
  });

  test("closes a sentence early at a clause edge when many clauses would exceed the bound", () => {
    const text = Array.from({ length: 30 }, () => "one two three,").join(" ");
    const sentences = splitSentences(text, 60);
    expect(sentences.length).toBeGreaterThan(5);
    for (const s of sentences) {
      expect(codePointLength(s.text)).toBeLessThanOrEqual(60);
      expect(s.text.endsWith(",")).toBe(true);
    }
  });

  test("throws when the bound is not positive", () => {
    expect(() => splitSentences("x", 0)).toThrow(RangeError);
  });
});
