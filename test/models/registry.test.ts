/**
 * The model registry's recipe (docs/architecture.md, "Adding a model family"): a TTS family
 * written entirely in test code (test/support/families/sine/: config, model, pipeline, family)
 * and registered with one line serves a voice through the real server — listed by
 * `models list`'s catalog, loaded by the real TTS engine loader, spoken over REST — and a broken
 * pack of it is reported like any other.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeModels } from "../../src/models/catalog.ts";
import { registerFamily } from "../../src/models/registry.ts";
import { startInProcess, type InProcessSawt } from "../support/in-process.ts";
import { sineFamily } from "../support/families/sine/family.ts";
import { tempDir } from "../support/sawt.ts";

const FREQUENCY = 500;
const RATE = 16000;
const models = tempDir("sawt-sine-");
let unregister: () => void;
let sawt: InProcessSawt;

function writeSinePack(folder: string, json: Record<string, unknown>): void {
  mkdirSync(join(models.path, folder), { recursive: true });
  writeFileSync(join(models.path, folder, "sine.json"), JSON.stringify(json));
}

beforeAll(async () => {
  unregister = registerFamily(sineFamily); // the one registry line
  writeSinePack("Myriam", { frequency_hz: FREQUENCY, sample_rate: RATE, seconds_per_char: 0.02 });
  writeSinePack("sherine", { frequency_hz: FREQUENCY, sample_rate: -1, seconds_per_char: 0.02 });
  sawt = await startInProcess({ SAWT_MODELS_DIR: models.path });
  await sawt.server.enginesSettled;
}, 60_000);

afterAll(async () => {
  await sawt?.close();
  unregister?.();
  models.remove();
});

describe("a TTS family registered from test code", () => {
  test("does show in the catalog `sawt models list` prints, broken pack with its reason", () => {
    const byName = Object.fromEntries(describeModels(models.path).map((e) => [e.name, e]));
    expect(byName.Myriam).toMatchObject({ serves: "TTS voice Myriam (sine)", problems: [] });
    expect(byName.sherine).toMatchObject({
      serves: undefined,
      problems: ["sine.json sample_rate must be a positive number"],
    });
  });

  test("does load through the real TTS engine loader and list the pack in health", async () => {
    const health = (await (await fetch(`${sawt.baseUrl}/v1/tts/health`)).json()) as Record<string, unknown>;
    expect(health.packs).toEqual([
      { name: "Myriam", voice: "Myriam", family: "sine", sampleRate: RATE, phonemeType: "text", speakers: 1 },
    ]);
    expect(health.broken_packs).toEqual([
      { pack: "sherine", reason: "sine.json sample_rate must be a positive number" },
    ]);
  });

  test("does refuse a second family of the same name", () => {
    expect(() => registerFamily({ ...sineFamily })).toThrow("model family sine is already registered");
  });

  test("does speak the family's tone over REST when its voice is asked for", async () => {
    const { key } = sawt.server.ctx.keys.create({ name: "sine", rpm: 60 });
    const res = await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
      method: "POST",
      headers: { "content-type": "application/json", "X-API-Key": key },
      body: JSON.stringify({ input: "مرحبا بكم", voice: "Myriam", response_format: "wav" }),
    });
    expect(res.status).toBe(200);
    const wav = new DataView(await res.arrayBuffer());
    expect(wav.getUint32(24, true)).toBe(RATE);
    const samples = new Int16Array(wav.buffer.slice(44));
    expect(samples.length).toBeGreaterThan(RATE / 10);
    // A 500 Hz tone crosses zero 1000 times a second; silence around it crosses none.
    const first = samples.findIndex((s) => s !== 0);
    const last = samples.findLastIndex((s) => s !== 0);
    let crossings = 0;
    for (let i = first + 1; i <= last; i++) if (samples[i - 1]! < 0 !== samples[i]! < 0) crossings++;
    expect(crossings / ((last - first) / RATE) / 2).toBeCloseTo(FREQUENCY, -1);
  });
});
