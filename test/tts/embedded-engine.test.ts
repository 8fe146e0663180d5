/**
 * D5 on a fresh install: with no packs at all, every voice and dialect is spoken by the embedded
 * espeak-ng engine (real libespeak-ng), reported as such, and the Arabic voices sound different.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DIALECTS, VOICES } from "../../src/tts/types.ts";
import { DIALECT_VOICE, VOICE_SPECS } from "../../src/tts/voice-resolution.ts";
import { tempDir } from "../support/sawt.ts";
import { pcmToFloat, rms, startEngine, speechRequest } from "./support.ts";

const ARABIC = "مرحبا بكم في خدمة العملاء.";
const ENGLISH = "Welcome to customer service.";

/**
 * Median fundamental frequency (Hz) over voiced 40 ms frames: the lag of the strongest normalised
 * autocorrelation between 2.5 and 10 ms (100–400 Hz), in frames loud and periodic enough to be
 * voiced. espeak-ng's waveform details carry state from earlier syntheses, its pitch settings do not.
 */
function medianPitch(samples: Float32Array, sampleRate: number): number {
  const frame = Math.round(0.04 * sampleRate);
  const minLag = Math.floor(sampleRate / 400);
  const maxLag = Math.ceil(sampleRate / 100);
  const pitches: number[] = [];
  for (let start = 0; start + frame + maxLag <= samples.length; start += frame) {
    let energy = 0;
    for (let i = start; i < start + frame; i++) energy += samples[i]! * samples[i]!;
    if (Math.sqrt(energy / frame) < 0.02) continue;
    let best = 0;
    let bestLag = 0;
    for (let lag = minLag; lag <= maxLag; lag++) {
      let cross = 0;
      let shifted = 0;
      for (let i = start; i < start + frame; i++) {
        cross += samples[i]! * samples[i + lag]!;
        shifted += samples[i + lag]! * samples[i + lag]!;
      }
      const score = cross / Math.sqrt(energy * shifted || 1);
      if (score > best) [best, bestLag] = [score, lag];
    }
    if (best > 0.7) pitches.push(sampleRate / bestLag);
  }
  pitches.sort((a, b) => a - b);
  return pitches[pitches.length >> 1] ?? Number.NaN;
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
    const spoken = [];
    for (const voice of ["Yara", "Sherine", "Myriam"]) {
      const result = await engine.service.synthesize(speechRequest({ input: ARABIC, voice, response_format: "pcm" }));
      spoken.push({ bytes: Bun.hash(result.audio), pitch: medianPitch(pcmToFloat(result.audio), result.sampleRate) });
    }
    expect(new Set(spoken.map((s) => s.bytes)).size).toBe(3);
    // Their pitch settings (synth.ts) order them Sherine < Yara < Myriam, audibly apart.
    const [yara, sherine, myriam] = spoken.map((s) => s.pitch) as [number, number, number];
    expect(yara - sherine).toBeGreaterThan(10);
    expect(myriam - yara).toBeGreaterThan(10);
  });
});
