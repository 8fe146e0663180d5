import { describe, expect, test } from "bun:test";
import { PackError } from "../../models/errors.ts";
import { dialectLabel, parseLabels } from "./config.ts";

describe("dialect labels", () => {
  test("does read bare dialect names as the spec's codes and keep other labels", () => {
    expect(["najdi", "ar-egyptian", "Levantine", "msa"].map(dialectLabel)).toEqual([
      "ar-najdi",
      "ar-egyptian",
      "ar-levantine",
      "msa",
    ]);
  });

  test("does accept labels with explicit indices in any order and refuse gaps", () => {
    expect(parseLabels("hijazi 1\nnajdi 0\n")).toEqual(["ar-najdi", "ar-hijazi"]);
    expect(() => parseLabels("najdi 0\nhijazi 2\n")).toThrow(PackError);
  });
});
