import { describe, expect, test } from "bun:test";
import { DIALECTS } from "../../core/tts.ts";
import { foldArabic } from "../arabic/fold.ts";
import { arabicCardinal, arabicDayOrdinal } from "./arabic-cardinal.ts";
import { numberWord, numberWordAfterAnd, numberWordWithClitic, ordinalWord } from "./arabic-lexicon.ts";
import { readInDialect } from "./dialects.ts";

const key = (word: string) => foldArabic(word, "match");
/** Values the reader writes words for: every number below 1000 and the scales in each count. */
const VALUES = [
  ...Array.from({ length: 1000 }, (_, n) => n),
  ...[1, 2, 3, 11, 100, 102, 200].flatMap((count) => [1e3, 1e6, 1e9, 1e12].map((scale) => count * scale)),
];

describe("the Arabic number lexicon", () => {
  test("does know every word the reader writes, in every gender, case and dialect", () => {
    const unknown = new Set<string>();
    for (const dialect of DIALECTS)
      for (const n of VALUES)
        for (const gender of ["masculine", "feminine"] as const)
          for (const genitive of [false, true])
            for (const construct of [false, true]) {
              const words = readInDialect(arabicCardinal(n, { gender, genitive, construct }), dialect).split(" ");
              for (const [i, word] of words.entries()) {
                const known =
                  i === 0 ? numberWordWithClitic(key(word)) : (numberWord(key(word)) ?? numberWordAfterAnd(key(word)));
                if (!known) unknown.add(`${dialect} ${n}: ${word}`);
              }
            }
    expect([...unknown].slice(0, 20)).toEqual([]);
  });

  test("does know every day ordinal the reader writes, in every dialect", () => {
    for (const dialect of DIALECTS)
      for (let day = 1; day <= 31; day++)
        for (const word of readInDialect(arabicDayOrdinal(day), dialect).split(" "))
          expect({ word, known: ordinalWord(key(word.replace(/^و/, ""))) !== undefined || word === "عشر" }).toEqual({
            word,
            known: true,
          });
  });

  test("does give a dialect's reading the entry of the MSA word it replaces", () => {
    expect(numberWord(key("تلاتة"))).toEqual(numberWord(key("ثلاثة")));
    expect(numberWord(key("ميتين"))).toEqual(numberWord(key("مئتان")));
    expect(numberWord(key("تلتاشر"))).toEqual({ t: "teen", v: 13 });
    expect(numberWord(key("تنعش"))).toEqual({ t: "teen", v: 12 });
    expect(ordinalWord(key("التالتة"))).toEqual({ v: 3, tens: false });
  });

  test("does read the heard forms callers say and the reader does not", () => {
    expect(numberWord(key("ثنين"))).toMatchObject({ t: "unit", v: 2 });
    expect(numberWord(key("مائة"))).toEqual({ t: "hundreds", v: 100, bare: true });
    expect(numberWord(key("ثلطعش"))).toEqual({ t: "teen", v: 13 });
    expect(numberWord(key("الساعة"))).toBeUndefined();
  });
});
