import { describe, expect, test } from "bun:test";
import { normalizeNumbers } from "../verbalize/numbers.ts";
import { DIALECT_READINGS, readInDialect } from "./dialects.ts";

/** Numbers read out in Arabic, then the dialect's readings: the TTS front-end's order. */
const read = (text: string, dialect?: Parameters<typeof readInDialect>[1]) =>
  readInDialect(normalizeNumbers(text, "ar"), dialect);

describe("ar-egyptian readings", () => {
  test("does read ث as ت and tens with -een in Egyptian numerals", () => {
    expect(read("3", "ar-egyptian")).toBe("تلاتة");
    expect(read("38", "ar-egyptian")).toBe("تمانية وتلاتين");
    expect(read("13", "ar-egyptian")).toBe("تلتاشر");
    expect(read("12", "ar-egyptian")).toBe("اتناشر");
    expect(read("2", "ar-egyptian")).toBe("اتنين");
    expect(read("300", "ar-egyptian")).toBe("تلتمية");
  });

  test("does read common words the Egyptian way and leave other words alone", () => {
    expect(read("موعدك يوم الثلاثاء", "ar-egyptian")).toBe("موعدك يوم التلات");
    // «ثلاثية» is not in the table: only whole words change.
    expect(read("ثلاثية", "ar-egyptian")).toBe("ثلاثية");
  });
});

describe("ar-levantine readings", () => {
  test("does read Levantine teens and ث as ت in numerals", () => {
    expect(read("13", "ar-levantine")).toBe("تلتعش");
    expect(read("12", "ar-levantine")).toBe("تنعش");
    expect(read("2", "ar-levantine")).toBe("تنين");
    expect(read("23", "ar-levantine")).toBe("تلاتة وعشرين");
    expect(read("الساعة 8", "ar-levantine")).toBe("الساعة تمانية");
  });

  test("does read common words the Levantine way", () => {
    expect(read("يوم الاثنين", "ar-levantine")).toBe("يوم التنين");
  });
});

describe("dialects without a table", () => {
  for (const dialect of ["ar-najdi", "ar-hijazi", "ar-qassimi", undefined] as const) {
    test(`does keep the MSA number words when the dialect is ${dialect ?? "omitted"}`, () => {
      expect(read("13", dialect)).toBe("ثلاثة عشر");
      expect(read("38", dialect)).toBe("ثمانية وثلاثون");
    });
  }

  test("does hold one table per dialect with no key mapped to itself", () => {
    expect(Object.keys(DIALECT_READINGS).sort()).toEqual(["ar-egyptian", "ar-levantine"]);
    for (const table of Object.values(DIALECT_READINGS))
      for (const [msa, spoken] of Object.entries(table!)) expect(spoken).not.toBe(msa);
  });
});
