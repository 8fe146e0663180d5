import { describe, expect, test } from "bun:test";
import { isHaraka, MARK_CLASS, startsWithMark, stripMarks, stripTatweel } from "./marks.ts";

/** Every code point of the Arabic blocks (and Extended-A/B/C) that Unicode calls a combining mark. */
function arabicCombiningMarks(): string[] {
  const ranges = [
    [0x0600, 0x06ff],
    [0x0750, 0x077f],
    [0x0870, 0x08ff],
    [0x10ec0, 0x10eff],
  ];
  const marks: string[] = [];
  for (const [from, to] of ranges)
    for (let c = from!; c <= to!; c++) if (/\p{M}/u.test(String.fromCodePoint(c))) marks.push(String.fromCodePoint(c));
  return marks;
}

describe("the Arabic marks table", () => {
  test("does hold every combining mark of the Arabic blocks and nothing that is not a mark", () => {
    const arabic = new RegExp(`^${MARK_CLASS.arabic}$`, "u");
    const missing = arabicCombiningMarks().filter((m) => !arabic.test(m));
    expect(missing.map((m) => m.codePointAt(0)!.toString(16))).toEqual([]);
    for (let c = 0x0600; c <= 0x08ff; c++) {
      const ch = String.fromCodePoint(c);
      if (arabic.test(ch)) expect(/\p{M}/u.test(ch)).toBe(true);
    }
  });

  test("does name the eight harakat libtashkeel writes, fathatan to sukun", () => {
    const harakat = [..."\u064B\u064C\u064D\u064E\u064F\u0650\u0651\u0652"];
    expect(harakat.every(isHaraka)).toBe(true);
    expect(["\u0653", "\u0670", "ا", "a"].some(isHaraka)).toBe(false);
  });

  test("does keep hamza and madda marks out of the vowel marks", () => {
    expect(stripMarks("\u0627\u0654\u064E", "vowel")).toBe("\u0627\u0654");
    expect(stripMarks("\u0627\u0654\u064E", "arabic")).toBe("\u0627");
  });

  test("does strip Quranic annotation with the vowel marks", () => {
    expect(stripMarks("الرحمٰن\u0615\u06DA", "vowel")).toBe("الرحمن");
  });

  test("does strip format marks but keep the joiners unless asked", () => {
    expect(stripMarks("\u200Fنعم\u200C\u200E", "format")).toBe("نعم\u200C");
    expect(stripMarks("\u200Fنعم\u200C\u200E", "invisible")).toBe("نعم");
  });

  test("does strip tatweel and see a combining mark at the start of a piece", () => {
    expect(stripTatweel("مرحـــبا")).toBe("مرحبا");
    expect(startsWithMark("\u064Eب")).toBe(true);
    expect(startsWithMark("ب\u064E")).toBe(false);
  });
});
