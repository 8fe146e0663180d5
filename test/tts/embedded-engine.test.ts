/**
 * D5 on a fresh install: with no packs at all, every voice and dialect is spoken by the embedded
 * espeak-ng engine (real libespeak-ng), reported as such, and the Arabic voices sound different.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DIALECTS, VOICES } from "../../src/tts/types.ts";
import { DIALECT_VOICE, VOICE_SPECS } from "../../src/tts/voices.ts";
import { tempDir } from "../support/sawt.ts";
import { pcmToFloat, rms, startEngine, speechRequest } from "./support.ts";

const ARABIC = "مرحبا بكم في خدمة العملاء.";
const ENGLISH = "Welcome to customer service.";

/** Zero crossings per second: a rough pitch/brightness fingerprint. */
function crossingRate(samples: Float32Array, sampleRate: number): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 !== samples[i]! < 0) crossings++;
  return (crossings * sampleRate) / samples.length;
}

describe("embedded espeak-ng engine", () => {
  const dir = tempDir("sawt-tts-espeak-only-");
  let engine: Awaited<ReturnType<typeof startEngine>>;
  beforeAll(async () => {
    mkdirSync(join(dir.path, "models"));
    engine = await startEngine(join(dir.path, "models"));
  });
  afterAll(async () => {
    await engine.release();
    dir.remove();
  });

  test("does report every voice as served by espeak-ng when no pack is installed", () => {
    expect(engine.unusable).toBeUndefined();
    expect(engine.details.voices).toEqual({
      Yara: "espeak-ng",
      Sherine: "espeak-ng",
      Myriam: "espeak-ng",
      Yara_en: "espeak-ng",
    });
  });

  for (const voice of VOICES) {
    for (const dialect of [undefined, ...DIALECTS]) {
      test(`does speak ${voice} with dialect ${dialect ?? "omitted"} through espeak-ng when no pack is installed`, async () => {
        const input = voice === "Yara_en" ? ENGLISH : ARABIC;
        const result = await engine.service.synthesize(
          speechRequest({ input, voice, response_format: "pcm", ...(dialect ? { dialect } : {}) }),
        );
        expect(result.engine).toBe("espeak-ng");
        const expectedVoice =
          voice === "Yara_en" || dialect === undefined || VOICE_SPECS[voice].dialects.includes(dialect)
            ? voice
            : DIALECT_VOICE[dialect];
        expect(result.voice).toBe(expectedVoice);
        expect(result.dialect).toBe(voice === "Yara_en" ? "en" : (dialect ?? VOICE_SPECS[voice].primaryDialect!));
        expect(result.fallback).toContain("espeak-ng used");
        const samples = pcmToFloat(result.audio);
        expect(result.durationSeconds).toBeGreaterThan(0.8);
        expect(samples.length).toBe(Math.round(result.durationSeconds * result.sampleRate));
        expect(rms(samples)).toBeGreaterThan(0.02);
      });
    }
  }

  test("does give Yara, Sherine and Myriam distinct sounds when espeak-ng speaks them", async () => {
    const fingerprints = [];
    for (const voice of ["Yara", "Sherine", "Myriam"]) {
      const result = await engine.service.synthesize(speechRequest({ input: ARABIC, voice, response_format: "pcm" }));
      fingerprints.push({
        voice,
        bytes: Bun.hash(result.audio),
        crossings: crossingRate(pcmToFloat(result.audio), result.sampleRate),
      });
    }
    expect(new Set(fingerprints.map((f) => f.bytes)).size).toBe(3);
    const rates = fingerprints.map((f) => f.crossings).sort((a, b) => a - b);
    expect(rates[1]! - rates[0]!).toBeGreaterThan(20);
    expect(rates[2]! - rates[1]!).toBeGreaterThan(20);
  });
});
