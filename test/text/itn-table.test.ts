/**
 * Issue 27 acceptance 2, the table half: spoken forms → written forms, Arabic (MSA and every
 * dialect Sawt speaks) and English, through the same formatText the REST door uses.
 */
import { describe, expect, test } from "bun:test";
import { formatText, type FormatLanguage } from "../../src/text/format.ts";
import { ARABIC_DIALECTS } from "./tables/arabic-dialects.ts";
import { ARABIC_MSA } from "./tables/arabic-msa.ts";
import { ENGLISH } from "./tables/english.ts";

function written(text: string, language: FormatLanguage): string {
  return formatText(text, { language, itn: true, redact: new Set(), digits: "western" }).text;
}

function check(rows: readonly (readonly [string, string])[], language: FormatLanguage): void {
  const wrong = rows
    .map(([spoken, want]) => ({ spoken, want, got: written(spoken, language) }))
    .filter((r) => r.got !== r.want);
  expect(wrong).toEqual([]);
}

describe("written forms table", () => {
  test("does hold at least 300 Arabic and 100 English rows", () => {
    expect(ARABIC_MSA.length + ARABIC_DIALECTS.length).toBeGreaterThanOrEqual(300);
    expect(ENGLISH.length).toBeGreaterThanOrEqual(100);
  });

  test("does write every MSA row as the table says", () => check(ARABIC_MSA, "ar"));
  test("does write every dialect row as the table says", () => check(ARABIC_DIALECTS, "ar"));
  test("does write every English row as the table says", () => check(ENGLISH, "en"));

  test("does write Arabic-Indic digits with the Arabic separators when asked", () => {
    const options = { language: "ar", itn: true, redact: new Set<never>(), digits: "arabic-indic" } as const;
    expect(formatText("مليون وخمسمئة ألف", options).text).toBe("١٬٥٠٠٬٠٠٠");
    expect(formatText("اثنا عشر ريالًا وخمسون هللة", options).text).toBe("١٢٫٥٠ ريال");
    expect(formatText("خمسة عشر بالمئة", options).text).toBe("١٥٪");
    expect(formatText("الخامس من مارس ألفين وأربعة وعشرين", options).text).toBe("٥/٣/٢٠٢٤");
  });
});
