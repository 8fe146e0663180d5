import { describe, expect, test } from "bun:test";
import { foldArabic, matchWords, normalizeForMatch } from "./fold.ts";

describe("Arabic-aware normalisation (match)", () => {
  const table: [string, string, string][] = [
    ["harakat (fatha, damma, kasra, shadda, sukun, tanwin)", "مُحَمَّدٌ يَكْتُبْ كِتَابًا", "محمد يكتب كتابا"],
    ["superscript alef", "هٰذا", "هذا"],
    ["tatweel", "الرصـــيد", "الرصيد"],
    ["Quranic and extended Arabic marks without splitting the word", "الرحمٰن\u0615ـيم \u08F0كتب", "الرحمنيم كتب"],
    ["alef with hamza above", "أحمد", "احمد"],
    ["alef with hamza below", "إلغاء", "الغاء"],
    ["alef with madda", "آخر", "اخر"],
    ["alef wasla", "ٱلحمد", "الحمد"],
    ["alef maqsura", "مستشفى", "مستشفي"],
    ["ta marbuta", "فاتورة", "فاتوره"],
    ["waw with hamza", "مؤسسة", "موسسه"],
    ["ya with hamza", "رئيسي", "رييسي"],
    ["Farsi yeh and keheh", "کیف", "كيف"],
    ["Arabic-Indic digits", "٠١٢٣٤٥٦٧٨٩", "0123456789"],
    ["Eastern Arabic-Indic digits", "۰۱۲۳۴۵۶۷۸۹", "0123456789"],
    ["Latin case", "Balance TRANSFER", "balance transfer"],
    ["Arabic punctuation and spaces", "  نعم،   أريد\tالرصيد؟ ", "نعم اريد الرصيد"],
    ["Latin punctuation", "yes, please!", "yes please"],
    ["presentation forms (NFKC)", "ﻻ", "لا"],
    ["invisible direction marks", "\u200Fنعم\u200E", "نعم"],
  ];
  for (const [name, input, expected] of table)
    test(`does fold ${name}`, () => {
      expect(normalizeForMatch(input)).toBe(expected);
    });

  test("does give no words for punctuation only", () => {
    expect(matchWords(" ،.؟! ")).toEqual([]);
    expect(matchWords("الرصيد من فضلك")).toEqual(["الرصيد", "من", "فضلك"]);
  });
});

describe("the lexicon and display foldings", () => {
  test("does drop vowel marks and tatweel but keep the letters as written for a lexicon key", () => {
    expect(foldArabic("مُحَمَّد", "lexicon")).toBe("محمد");
    expect(foldArabic("هٰذا", "lexicon")).toBe("هذا");
    expect(foldArabic("محـــمد", "lexicon")).toBe("محمد");
    expect(foldArabic("أحمد", "lexicon")).toBe("أحمد");
    expect(foldArabic("مدرسة", "lexicon")).toBe("مدرسة");
  });

  test("does keep the marks that make a letter for a lexicon key", () => {
    // ا + hamza above is أ when composed: the author's letter, not a vowel on it.
    expect(foldArabic("\u0627\u0654", "lexicon")).toBe("\u0627\u0654");
  });

  test("does drop vowel marks only for display", () => {
    expect(foldArabic("مَرْحَبًا", "display")).toBe("مرحبا");
    expect(foldArabic("مرحـبا", "display")).toBe("مرحـبا");
  });

  test("does leave Latin text alone for a lexicon key and for display", () => {
    expect(foldArabic("Sawt STC", "lexicon")).toBe("Sawt STC");
    expect(foldArabic("Sawt STC", "display")).toBe("Sawt STC");
  });
});
