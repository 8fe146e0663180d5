import { describe, expect, test } from "bun:test";
import { collapseWhitespace, normalizeText } from "./normalize.ts";

describe("normalizeText", () => {
  test("folds presentation forms and full-width characters when applying NFKC", () => {
    expect(normalizeText("ﻻ ﷲ")).toBe("لا الله");
    expect(normalizeText("ＡＢＣ１２３")).toBe("ABC123");
  });

  test("removes tatweel when a word is stretched", () => {
    expect(normalizeText("مرحـــــبا")).toBe("مرحبا");
  });

  test("keeps Arabic diacritics when they are present", () => {
    const text = "مَرْحَبًا بِكُمْ";
    expect(normalizeText(text)).toBe(text.normalize("NFKC"));
    expect(normalizeText(text)).toContain("\u064E"); // fatha survives
  });

  test("collapses spaces and tabs and keeps single newlines when whitespace is messy", () => {
    expect(normalizeText("  a \t\u00A0 b \r\n\r\n  c\rd  ")).toBe("a b\nc\nd");
  });

  test("strips direction marks and zero-width spaces when copied from Arabic documents", () => {
    expect(normalizeText("\u200Fمرحبا\u200B \u202Bبكم\u202C\uFEFF")).toBe("مرحبا بكم");
  });

  test("returns an empty string when the input is only whitespace", () => {
    expect(normalizeText(" \n\t ")).toBe("");
    expect(collapseWhitespace("a  \n \n b")).toBe("a\nb");
  });
});
