/**
 * docs/arabic-models.md (issue #32): at least ten published models, each row with publisher,
 * licence, size, layout/family, dialects and how it was checked; every family the page names is
 * one Sawt registers; every test the page names exists and is about that family; the pages that
 * point operators there (doctor's fix, the disabled ASR engine's detail) name it.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ARABIC_MODELS_DOC } from "../../src/asr/languages.ts";
import { noRecognizerReason } from "../../src/asr/loader.ts";
import { BUILT_IN_FAMILIES } from "../../src/app/families.ts";
import { ROOT } from "../support/sawt.ts";

const page = readFileSync(join(ROOT, ARABIC_MODELS_DOC), "utf8");
const families = new Set(BUILT_IN_FAMILIES.map((f) => f.name));

/** Rows of the markdown table that follows `heading`, as cells. */
function table(heading: string): string[][] {
  const from = page.indexOf(heading);
  expect(from, heading).toBeGreaterThan(-1);
  const lines = page.slice(from).split("\n").slice(1);
  const start = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .slice(1, -1)
        .split("|")
        .map((c) => c.trim()),
    );
  }
  return rows;
}

const familiesIn = (cell: string) =>
  [...cell.matchAll(/`([a-z0-9-]+)`/g)].map((m) => m[1]!).filter((n) => families.has(n));

test("does list at least ten published models with every field filled", () => {
  const rows = table("## The catalogue");
  expect(rows.length).toBeGreaterThanOrEqual(10);
  for (const [n, model, publisher, licence, size, layout, dialects, checked] of rows) {
    for (const cell of [model, publisher, licence, size, layout, dialects]) expect(cell, `row ${n}`).not.toBe("");
    expect(checked, `row ${n}`).toMatch(/^(real file|constructed)/);
    expect(familiesIn(layout!).length, `row ${n} names a Sawt family: ${layout}`).toBeGreaterThan(0);
  }
});

test("does name only families Sawt registers, each with an existing test about it", () => {
  const named = new Set(table("## The catalogue").flatMap((row) => familiesIn(row[5]!)));
  const tested = new Map(
    table("## Which tests check what").map(([family, tests]) => [family!.replaceAll("`", ""), tests!]),
  );
  for (const family of named) {
    const tests = tested.get(family);
    expect(tests, `a test for ${family}`).toBeDefined();
    for (const file of tests!.split(",").map((t) => t.trim())) {
      expect(existsSync(join(ROOT, file)), file).toBe(true);
      const text = readFileSync(join(ROOT, file), "utf8").toLowerCase();
      const word = family.split("-")[0]!.replace("nemo", family.endsWith("ctc") ? "ctc" : "transducer");
      expect(text.includes(word) || text.includes(family), `${file} is about ${family}`).toBe(true);
    }
  }
});

test("does get pointed at by the disabled ASR engine's detail and by doctor", () => {
  expect(noRecognizerReason(false)).toContain(ARABIC_MODELS_DOC);
  expect(readFileSync(join(ROOT, "src", "doctor", "checks.ts"), "utf8")).toContain("ARABIC_MODELS_DOC");
});
