/**
 * D1–D5 through the real service and real packs: each pack has its own sample rate and speaks
 * ids, so which pack actually spoke is read from the audio, not taken from the report.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { AppError } from "../../src/errors/taxonomy.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { tempDir } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap, startEngine, speechRequest } from "./support.ts";

const MAP = idMap(ARABIC_TEXT_SYMBOLS);
/** The rate tells the packs apart in the output. */
const RATES = { yara: 16000, sherine: 22050 } as const;

type Engine = Awaited<ReturnType<typeof startEngine>>;

async function packsDir(root: string, packs: readonly (keyof typeof RATES)[]): Promise<string> {
  const models = join(root, "models");
  for (const pack of packs)
    await writePiperPack(join(models, pack), {
      name: `ar_${pack}`,
      sampleRate: RATES[pack],
      phonemeIdMap: MAP,
      phonemeType: "text",
    });
  return models;
}

async function say(engine: Engine, body: Record<string, unknown>, header?: string) {
  return engine.service.synthesize(speechRequest({ input: "مرحبا", response_format: "wav", ...body }, header));
}

describe("voice and dialect fallbacks with Yara and Sherine packs installed", () => {
  const dir = tempDir("sawt-tts-fallback-");
  let engine: Engine;
  beforeAll(async () => {
    engine = await startEngine(await packsDir(dir.path, ["yara", "sherine"]));
  });
  afterAll(async () => {
    await engine.release();
    dir.remove();
  });

  test("does speak with Yara's pack when the removed voice Nouf is asked (D1)", async () => {
    const r = await say(engine, { voice: "Nouf" });
    expect(r).toMatchObject({ voice: "Yara", dialect: "ar-najdi", engine: "piper", sampleRate: RATES.yara });
    expect(r.fallback).toBe("unknown voice, default Yara used");
  });

  test("does treat an unknown dialect as omitted (D3)", async () => {
    const r = await say(engine, { voice: "Sherine", dialect: "ar-moroccan" });
    expect(r).toMatchObject({
      voice: "Sherine",
      dialect: "ar-egyptian",
      sampleRate: RATES.sherine,
      fallback: undefined,
    });
  });

  test("does let the body dialect beat the X-TTS-Dialect header (D3)", async () => {
    expect(await say(engine, { dialect: "ar-egyptian" }, "ar-hijazi")).toMatchObject({
      voice: "Sherine",
      dialect: "ar-egyptian",
      sampleRate: RATES.sherine,
    });
    expect(await say(engine, {}, "ar-egyptian")).toMatchObject({
      voice: "Sherine",
      dialect: "ar-egyptian",
      sampleRate: RATES.sherine,
    });
    expect(await say(engine, { dialect: "klingon" }, "ar-hijazi")).toMatchObject({
      voice: "Yara",
      dialect: "ar-hijazi",
      sampleRate: RATES.yara,
    });
  });

  test("does hand the dialect to its voice when the asked voice does not speak it (D4)", async () => {
    const r = await say(engine, { voice: "Yara", dialect: "ar-egyptian" });
    expect(r).toMatchObject({ voice: "Sherine", dialect: "ar-egyptian", engine: "piper", sampleRate: RATES.sherine });
    expect(r.fallback).toBe("Yara does not speak ar-egyptian, Sherine used");
  });

  test("does use Yara's pack for Myriam, whose pack is not installed (D5)", async () => {
    for (const body of [{ voice: "Myriam" }, { dialect: "ar-levantine" }]) {
      const r = await say(engine, body);
      expect(r).toMatchObject({ voice: "Yara", dialect: "ar-najdi", engine: "piper", sampleRate: RATES.yara });
      expect(r.fallback).toContain("Myriam pack not installed, Yara pack used");
    }
  });

  test("does speak Yara_en with espeak-ng in English and ignore the dialect", async () => {
    const r = await say(engine, { input: "Hello", voice: "Yara_en", dialect: "ar-egyptian" });
    expect(r).toMatchObject({
      voice: "Yara_en",
      dialect: "en",
      engine: "espeak-ng",
      fallback: "Yara_en pack not installed, espeak-ng used",
    });
  });
});

describe("fallbacks without a Yara pack", () => {
  const dir = tempDir("sawt-tts-fallback-noyara-");
  let engine: Engine;
  beforeAll(async () => {
    engine = await startEngine(await packsDir(dir.path, ["sherine"]));
  });
  afterAll(async () => {
    await engine.release();
    dir.remove();
  });

  test("does let espeak-ng speak Myriam itself when neither Myriam nor Yara has a pack (D5)", async () => {
    const r = await say(engine, { voice: "Myriam" });
    expect(r).toMatchObject({
      voice: "Myriam",
      dialect: "ar-levantine",
      engine: "espeak-ng",
      fallback: "no Myriam or Yara pack installed, espeak-ng used",
    });
  });

  test("does still use Sherine's own pack when it is installed", async () => {
    expect(await say(engine, { voice: "Sherine" })).toMatchObject({
      voice: "Sherine",
      engine: "piper",
      sampleRate: RATES.sherine,
      fallback: undefined,
    });
  });
});

describe("strict voices", () => {
  const dir = tempDir("sawt-tts-strict-");
  let engine: Engine;
  beforeAll(async () => {
    engine = await startEngine(await packsDir(dir.path, ["yara"]), { SAWT_TTS_STRICT_VOICES: "true" });
  });
  afterAll(async () => {
    await engine.release();
    dir.remove();
  });

  test("does answer 400 with the allowed voices when tts.strict_voices is on and the voice is unknown", async () => {
    const error = await say(engine, { voice: "Nouf" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(400);
    expect((error as AppError).detail).toBe("Invalid voice. Allowed: Yara, Sherine, Myriam, Yara_en");
    expect(engine.service.synthesize(speechRequest({ input: "x", voice: "Atheer" }))).rejects.toThrow("Invalid voice");
  });

  test("does still serve known voices when tts.strict_voices is on", async () => {
    expect(await say(engine, { voice: "Yara" })).toMatchObject({ voice: "Yara", fallback: undefined });
  });
});
