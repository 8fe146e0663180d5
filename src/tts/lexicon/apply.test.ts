import { describe, expect, test } from "bun:test";
import { applyLexicon } from "./apply.ts";
import type { LexiconEntry } from "./store.ts";

const entry = (grapheme: string, alias: string): LexiconEntry => ({ grapheme, alias });

describe("applyLexicon", () => {
  test("does match a grapheme whatever vowel marks or tatweel the prompt writes on it", () => {
    const entries = [entry("هذا", "هاذا")];
    for (const written of ["هذا", "هَذَا", "هٰذا", "هـذا"])
      expect(applyLexicon(`قرأت ${written} الكتاب`, entries, "ar-najdi")).toBe("قرأت هاذا الكتاب");
  });

  test("does key an entry by its bare letters, so a marked grapheme matches unmarked text", () => {
    expect(applyLexicon("محمد وصل", [entry("مُحَمَّد", "محمد الأول")], "ar-najdi")).toBe("محمد الأول وصل");
  });

  test("does keep the hamza the author chose and match whole words only", () => {
    const entries = [entry("أحمد", "احمد بن علي")];
    expect(applyLexicon("احمد وأحمدي", entries, "ar-najdi")).toBe("احمد وأحمدي");
  });
});
