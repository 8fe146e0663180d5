/**
 * Issue #19: a plain WAV upload is transcribed without an ffmpeg process (read in-process by
 * src/audio/wav-upload.ts), to the transcript the same recording gets through ffmpeg — both for
 * a recording held whole and one longer than a request's reservation (read in chunks).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { AsrEngineResult } from "../../src/asr/loader.ts";
import { processesStartedCount } from "../../src/audio/process.ts";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { concat, encodeFile, ENCODINGS, modelsDir, readyEngine, silence } from "./support.ts";

type ReadyEngine = Extract<AsrEngineResult, { ok: true }>;
let models: ReturnType<typeof modelsDir>;
let engine: ReadyEngine;

beforeAll(async () => {
  models = modelsDir();
  await writeToneCtcPack(join(models.dir, "tone-ctc"));
  engine = await readyEngine(models.dir);
});

afterAll(async () => {
  await engine?.release();
  models?.remove();
});

const RATE = 22050;
const spoken = (text: string) => concat(silence(0.3, RATE), letterToneAudio(text, RATE), silence(0.4, RATE));

/** Transcribes `audio` uploaded as WAV (counting processes started) and as FLAC (through ffmpeg). */
async function bothWays(audio: Float32Array, name: string) {
  const wav = encodeFile(audio, RATE, join(models.dir, `${name}.wav`), ENCODINGS.wav!);
  const flac = encodeFile(audio, RATE, join(models.dir, `${name}.flac`), ENCODINGS.flac!);
  const before = processesStartedCount();
  const fromWav = await engine.service.transcribeFile(wav);
  const started = processesStartedCount() - before;
  const fromFlac = await engine.service.transcribeFile(flac);
  return { fromWav, fromFlac, started };
}

describe("ASR service: WAV uploads", () => {
  test("does transcribe a WAV upload with no ffmpeg process, as the same audio through ffmpeg", async () => {
    const { fromWav, fromFlac, started } = await bothWays(spoken("مرحبا بكم في خدمة العملاء"), "call");
    expect(started).toBe(0);
    expect(fromWav.text).toBe("مرحبا بكم في خدمة العملاء");
    expect(fromWav).toEqual(fromFlac);
  });

  test("does read a WAV longer than a request's reservation in chunks with no ffmpeg process", async () => {
    const parts: Float32Array[] = [];
    while (parts.reduce((n, p) => n + p.length, 0) < 45 * RATE) parts.push(spoken("سلام عليكم"), silence(1, RATE));
    const { fromWav, fromFlac, started } = await bothWays(concat(...parts), "long");
    expect(started).toBe(0);
    expect(fromWav.duration).toBeGreaterThan(45);
    expect(fromWav.text).toBe(Array.from({ length: parts.length / 2 }, () => "سلام عليكم").join(" "));
    expect(fromWav.text).toBe(fromFlac.text);
    expect(fromWav.segments.length).toBe(fromFlac.segments.length);
  });
});
