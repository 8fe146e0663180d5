import { describe, expect, test } from "bun:test";
import { asciiDigits, asciiNumerals, toArabicIndic } from "./digits.ts";

describe("Arabic digits", () => {
  test("does fold every Arabic digit system to ASCII when converting numerals", () => {
    expect(asciiNumerals("٠١٢٣٤٥٦٧٨٩ ۰۱۲۳۴۵۶۷۸۹ ٣٫٥ ١٬٠٠٠ ٪")).toBe("0123456789 0123456789 3.5 1,000 %");
  });

  test("does fold digits only when converting digits", () => {
    expect(asciiDigits("٣٫٥ ۱۲ ٪")).toBe("3٫5 12 ٪");
  });

  test("does write Arabic-Indic digits with the Arabic separators and percent sign", () => {
    expect(toArabicIndic("1,500.25 ريال 15%")).toBe("١٬٥٠٠٫٢٥ ريال ١٥٪");
    expect(asciiNumerals(toArabicIndic("1,500.25 15%"))).toBe("1,500.25 15%");
  });
});
