/**
 * Two folders for one voice (`Yara/` and `yara/`): the TTS engine's inspection, its loading and
 * `sawt models list` (the catalogue) apply the one rule of src/models/voice-folders.ts, so they
 * agree that the first usable folder in name order serves the voice and the other is reported.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { log } from "../../src/log/logger.ts";
import { describeModels } from "../../src/models/catalog.ts";
import { inspectTtsPacks, loadTtsPacks } from "../../src/tts/packs.ts";
import "../support/families.ts";
import { LETTER_TONES } from "../support/models/ctc.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { tempDir } from "../support/sawt.ts";

const work = tempDir("sawt-voice-folders-");
const letters = Object.fromEntries(LETTER_TONES);

beforeAll(async () => {
  for (const folder of ["Yara", "yara"])
    await writePiperPack(join(work.path, folder), {
      name: "ar_JO-letters-medium",
      sampleRate: 16000,
      phonemeType: "text",
      phonemeIdMap: letters,
    });
});

afterAll(() => work.remove());

test("does serve the voice from the first folder and report the second, alike in the engine and the catalogue", async () => {
  const reason = "another folder already serves Yara";
  const inspected = inspectTtsPacks(work.path);
  expect(inspected.loaded.map((p) => [p.name, p.voice])).toEqual([["Yara", "Yara"]]);
  expect(inspected.broken).toEqual([{ pack: "yara", reason }]);
  const loaded = await loadTtsPacks(work.path, log.child({ test: "voice-folders" }));
  try {
    expect(loaded.broken).toEqual([{ pack: "yara", reason }]);
  } finally {
    await loaded.release();
  }
  const listed = describeModels(work.path).map((e) => [e.name, e.problems]);
  expect(listed).toEqual([
    ["Yara", []],
    ["yara", [reason]],
  ]);
});
