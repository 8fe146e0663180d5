/**
 * Pack validation at start-up: a broken voice pack is reported (engine details, log, the
 * doctor's inspection) with why, skipped, and the rest keeps serving.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setLogSink } from "../../src/log/logger.ts";
import { inspectTtsPacks } from "../../src/tts/packs.ts";
import { GraphBuilder } from "../support/onnx/builder.ts";
import { writePiperPack, writeSherpaVitsPack } from "../support/models/tone-voice.ts";
import { tempDir } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap, startEngine, speechRequest } from "./support.ts";

const MAP = idMap(ARABIC_TEXT_SYMBOLS);

/** A model that takes `input` and `input_lengths` but no `scales`. */
function modelWithoutScales(): Uint8Array {
  const g = new GraphBuilder("no_scales");
  const input = g.input("input", "int64", [1, "n"]);
  g.input("input_lengths", "int64", [1]);
  g.output(g.op("Cast", [input], { to: 1 }), "output", "float32", [1, "n"]);
  return g.toModel();
}

describe("broken packs", () => {
  const dir = tempDir("sawt-tts-broken-");
  const models = join(dir.path, "models");
  const logs: string[] = [];
  let restore: (line: string) => void;
  let engine: Awaited<ReturnType<typeof startEngine>>;
  beforeAll(async () => {
    // Yara: good. Sherine: id map lacks "$". Myriam: not a model. Yara_en: graph without scales.
    await writePiperPack(join(models, "yara"), {
      name: "ar_ok",
      sampleRate: 16000,
      phonemeIdMap: MAP,
      phonemeType: "text",
    });
    const sherine = await writePiperPack(join(models, "sherine"), {
      name: "ar_bad",
      sampleRate: 16000,
      phonemeIdMap: MAP,
      phonemeType: "text",
    });
    const config = JSON.parse(await Bun.file(sherine.configPath).text());
    delete config.phoneme_id_map.$;
    await Bun.write(sherine.configPath, JSON.stringify(config));
    await writeSherpaVitsPack(join(models, "myriam"), { sampleRate: 16000, phonemeIdMap: MAP });
    writeFileSync(join(models, "myriam", "model.onnx"), "not an onnx model at all");
    mkdirSync(join(models, "yara_en"));
    await Bun.write(join(models, "yara_en", "en.onnx"), modelWithoutScales());
    await Bun.write(
      join(models, "yara_en", "en.onnx.json"),
      JSON.stringify({ ...config, phoneme_id_map: { ...config.phoneme_id_map, $: [2] } }),
    );
    restore = setLogSink((line) => logs.push(line));
    engine = await startEngine(models);
    setLogSink(restore);
  });
  afterAll(async () => {
    await engine.release();
    dir.remove();
  });

  test("does report each broken pack with its reason and keep the good one serving", async () => {
    const broken = Object.fromEntries(
      (engine.details.broken_packs as { pack: string; reason: string }[]).map((b) => [b.pack, b.reason]),
    );
    expect(Object.keys(broken).sort()).toEqual(["myriam", "sherine", "yara_en"]);
    expect(broken.sherine).toContain('no id for "$"');
    expect(broken.myriam).toContain("not a valid ONNX model");
    expect(broken.yara_en).toContain('no input "scales"');
    expect(engine.details.voices).toEqual({ Yara: "piper", Sherine: "piper", Myriam: "piper", Yara_en: "espeak-ng" });
    const result = await engine.service.synthesize(
      speechRequest({ input: "مرحبا", voice: "Sherine", response_format: "pcm" }),
    );
    expect(result).toMatchObject({
      voice: "Yara",
      engine: "piper",
      sampleRate: 16000,
      fallback: "Sherine pack not installed, Yara pack used",
    });
  });

  test("does log each broken pack once, by name and reason", () => {
    const lines = logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === "tts pack broken, skipped");
    expect(lines.map((l) => l.pack).sort()).toEqual(["myriam", "sherine", "yara_en"]);
    expect(lines.every((l) => typeof l.reason === "string" && l.level === "warn")).toBe(true);
  });

  test("does find the same broken packs without opening sessions when the doctor inspects", () => {
    const report = inspectTtsPacks(models);
    expect(report.loaded.map((p) => p.name)).toEqual(["yara"]);
    expect(report.broken.map((b) => b.pack).sort()).toEqual(["myriam", "sherine", "yara_en"]);
  });
});
