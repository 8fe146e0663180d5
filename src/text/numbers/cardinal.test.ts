import { describe, expect, test } from "bun:test";
import { arabicCardinal, arabicDayOrdinal, countArabic } from "./arabic-cardinal.ts";
import { CURRENCIES } from "./currencies.ts";
import { englishCardinal, englishOrdinal, englishYear } from "./english-cardinal.ts";

describe("Arabic and English number words", () => {
  test("gives genitive forms when asked for a year", () => {
    expect(arabicCardinal(2022, { genitive: true })).toBe("ألفين واثنين وعشرين");
    expect(arabicCardinal(12, { genitive: true })).toBe("اثني عشر");
  });

  test("gives feminine forms when counting a feminine noun", () => {
    expect(arabicCardinal(13, { gender: "feminine" })).toBe("ثلاث عشرة");
    expect(arabicCardinal(11, { gender: "feminine" })).toBe("إحدى عشرة");
    expect(arabicCardinal(21, { gender: "feminine" })).toBe("إحدى وعشرون");
  });

  test("agrees the counted noun with the last two digits when counting money", () => {
    const riyal = CURRENCIES[0]!.ar;
    expect(countArabic(3, riyal)).toBe("ثلاثة ريالات");
    expect(countArabic(10, riyal)).toBe("عشرة ريالات");
    expect(countArabic(103, riyal)).toBe("مئة وثلاثة ريالات");
    expect(countArabic(111, riyal)).toBe("مئة وأحد عشر ريالًا");
    expect(countArabic(102, riyal)).toBe("مئة ريال وريالان");
    expect(countArabic(2000, riyal)).toBe("ألفا ريال");
    expect(countArabic(1_000_000, riyal)).toBe("مليون ريال");
  });

  test("reads English cardinals, ordinals and years when given edge values", () => {
    expect(englishCardinal(0)).toBe("zero");
    expect(englishCardinal(1_000_001)).toBe("one million one");
    expect(englishOrdinal(12)).toBe("twelfth");
    expect(englishOrdinal(40)).toBe("fortieth");
    expect(englishYear(2005)).toBe("two thousand five");
    expect(englishYear(1905)).toBe("nineteen oh five");
    expect(englishYear(1900)).toBe("nineteen hundred");
  });

  test("gives the definite masculine ordinal of a day of the month", () => {
    expect(arabicDayOrdinal(1)).toBe("الأول");
    expect(arabicDayOrdinal(11)).toBe("الحادي عشر");
    expect(arabicDayOrdinal(15)).toBe("الخامس عشر");
    expect(arabicDayOrdinal(21)).toBe("الحادي والعشرون");
    expect(arabicDayOrdinal(30)).toBe("الثلاثون");
  });

  test("throws when a number is outside the supported range", () => {
    expect(() => arabicCardinal(-1)).toThrow(RangeError);
    expect(() => englishCardinal(1e15)).toThrow(RangeError);
  });
});
