/**
 * The tashkeel pack contract as libtashkeel publishes it, read without a session: the real model
 * (the report: it used to be refused as broken), the three-input shape, and the reasons a
 * pack that breaks the contract is reported with. Plus the text contract (marks, hints, digits).
 */
import { describe, expect, test } from "bun:test";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { inspectModels, packsOfRole } from "../../../src/models/inspect.ts";
import { readTashkeelConfig } from "../../../src/tts/tashkeel/config.ts";
import { hintFor, readWritten, writeBack } from "../../../src/tts/tashkeel/marks.ts";
import { HINT_ID_MAP, writeHintedTashkeelPack, writeRealTashkeelPack } from "../../support/models/tashkeel-hints.ts";
import { tempDir } from "../../support/sawt.ts";

const INPUT_IDS = new Map(Object.entries({ _: 0, " ": 1, "#": 2, ب: 25, ت: 27, م: 48 }));

describe("tashkeel pack contract", () => {
  test("does accept the real published model with its {marks: id} target map and input_lengths", async () => {
    const dir = tempDir("sawt-tashkeel-real-");
    try {
      await writeRealTashkeelPack(join(dir.path, "tashkeel"));
      const [pack] = packsOfRole(inspectModels(dir.path), "tashkeel");
      expect(pack?.ok).toBe(true);
      const config = readTashkeelConfig(join(dir.path, "tashkeel"));
      expect(config.graph).toMatchObject({
        chars: "char_inputs",
        charType: "int64",
        lengths: "input_lengths",
        hints: undefined,
        output: "output",
        padTo: false,
      });
      expect(config.targets.get(11)).toBe("\u0651\u064E");
      expect(config.targets.get(1)).toBe("");
    } finally {
      dir.remove();
    }
  });

  test("does read diac_inputs and the hint map of the three-input shape", async () => {
    const dir = tempDir("sawt-tashkeel-hints-");
    try {
      await writeHintedTashkeelPack(join(dir.path, "tashkeel"), [1]);
      const config = readTashkeelConfig(join(dir.path, "tashkeel"));
      expect(config.graph).toMatchObject({ chars: "char_inputs", hints: "diac_inputs", lengths: "input_lengths" });
      expect(config.hints?.get("\u0651")).toBe(15);
    } finally {
      dir.remove();
    }
  });

  test("does report the pack broken with its reason when diac_inputs has no hint map or a map is malformed", async () => {
    const dir = tempDir("sawt-tashkeel-broken-");
    try {
      const pack = join(dir.path, "tashkeel");
      await writeHintedTashkeelPack(pack, [1]);
      await rm(join(pack, "hint_id_map.json"));
      expect(packsOfRole(inspectModels(dir.path), "tashkeel")[0]).toMatchObject({
        ok: false,
        reason: "tashkeel model takes diac_inputs but the pack has no hint_id_map.json",
      });
      await Bun.write(join(pack, "hint_id_map.json"), JSON.stringify(HINT_ID_MAP));
      await Bun.write(join(pack, "target_id_map.json"), JSON.stringify({ "\u064E": "five" }));
      expect(packsOfRole(inspectModels(dir.path), "tashkeel")[0]).toMatchObject({
        ok: false,
        reason: 'target_id_map["\u064E"] must be a non-negative integer',
      });
    } finally {
      dir.remove();
    }
  });
});

describe("tashkeel text contract", () => {
  test("does feed digits as # and pass characters outside the map through unmarked", () => {
    const chars = readWritten("بت 12!", INPUT_IDS);
    expect(chars.map((c) => c.modelSymbol)).toEqual(["ب", "ت", " ", "#", "#", undefined]);
    expect(writeBack(chars, ["\u064E", "\u064F", "", "", ""])).toBe("بَتُ 12!");
  });

  test("does keep the marks the author wrote and fill only unmarked letters", () => {
    const chars = readWritten("بِتم", INPUT_IDS);
    expect(chars.map((c) => c.marks)).toEqual(["\u0650", "", ""]);
    expect(writeBack(chars, ["\u064E", "\u064F", "\u0652"])).toBe("بِتُمْ");
  });

  test("does read shadda with its vowel as one hint in either order", () => {
    const hints = new Map(Object.entries(HINT_ID_MAP));
    expect(hintFor("\u064E\u0651", hints)).toBe(11);
    expect(hintFor("\u0651\u064E", hints)).toBe(11);
    expect(hintFor("\u0651", hints)).toBe(15);
    expect(hintFor("", hints)).toBe(1);
    expect(hintFor("\u064E\u064F", hints)).toBe(1);
  });
});
