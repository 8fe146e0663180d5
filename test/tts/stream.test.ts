/**
 * Streaming synthesis: one chunk per sentence at the voice's rate, the same audio as a whole
 * synthesis, and an admission slot held for the whole stream and released when it ends early.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { floatToInt16 } from "../../src/audio/wav.ts";
import { AppError } from "../../src/errors/taxonomy.ts";
import type { SpeechChunk } from "../../src/tts/types.ts";
import { decodeToneAudio } from "../support/models/tone-decoder.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { tempDir, until } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap, silenceRuns, startEngine, speechRequest } from "./support.ts";

const INPUT = "مرحبا بكم. كيف حالك؟ شكرا لك.";

describe("streaming synthesis", () => {
  const dir = tempDir("sawt-tts-stream-");
  let engine: Awaited<ReturnType<typeof startEngine>>;
  beforeAll(async () => {
    await writePiperPack(join(dir.path, "models", "yara"), {
      name: "ar_text",
      sampleRate: 16000,
      phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
      phonemeType: "text",
    });
    engine = await startEngine(join(dir.path, "models"), {}, { concurrency: 1, maxQueue: 0 });
  });
  afterAll(async () => {
    await engine.release();
    dir.remove();
  });

  test("does yield one chunk per sentence whose audio equals a whole synthesis", async () => {
    const request = speechRequest({ input: INPUT, response_format: "pcm" });
    const { resolution, chunks } = engine.service.synthesizeStream(request);
    expect(resolution).toEqual({ voice: "Yara", dialect: "ar-najdi", engine: "piper", fallback: undefined });
    const got: SpeechChunk[] = [];
    for await (const chunk of chunks) got.push(chunk);
    expect(got.map((c) => [c.index, c.last, c.sampleRate])).toEqual([
      [0, false, 16000],
      [1, false, 16000],
      [2, true, 16000],
    ]);
    // Every chunk but the last carries the sentence silence at its end.
    for (const chunk of got.slice(0, 2)) expect(silenceRuns(chunk.pcm, 16000)).toEqual([0.2 * 16000]);
    expect(decodeToneAudio(got[2]!.pcm, 16000, { lengthScale: 1 }).ids.slice(0, 2)).toEqual([1, 0]);
    const joined = new Float32Array(got.reduce((n, c) => n + c.pcm.length, 0));
    let at = 0;
    for (const chunk of got) {
      joined.set(chunk.pcm, at);
      at += chunk.pcm.length;
    }
    const whole = await engine.service.synthesize(request);
    expect(Buffer.from(floatToInt16(joined).buffer).equals(Buffer.from(whole.audio))).toBe(true);
  });

  test("does hold the admission slot for the whole stream and give it back at the end", async () => {
    const request = speechRequest({ input: INPUT, response_format: "pcm" });
    const iterator = engine.service.synthesizeStream(request).chunks[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    // concurrency 1, queue 0: while the stream lives, another request is refused as busy.
    const busy = await engine.service.synthesize(request).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(AppError);
    expect((busy as AppError).status).toBe(503);
    while (!(await iterator.next()).done);
    expect(engine.admission.stats.running).toBe(0);
    expect((await engine.service.synthesize(request)).audio.length).toBeGreaterThan(0);
  });

  test("does release the slot when the consumer stops early", async () => {
    const request = speechRequest({ input: INPUT, response_format: "pcm" });
    for await (const chunk of engine.service.synthesizeStream(request).chunks) {
      expect(chunk.index).toBe(0);
      break;
    }
    expect(engine.admission.stats.running).toBe(0);
  });

  test("does stop and release the slot when the caller aborts mid-stream", async () => {
    const controller = new AbortController();
    const request = speechRequest({ input: INPUT, response_format: "pcm" });
    const seen: number[] = [];
    const error = await (async () => {
      for await (const chunk of engine.service.synthesizeStream(request, { signal: controller.signal }).chunks) {
        seen.push(chunk.index);
        controller.abort(new Error("client went away"));
      }
    })().catch((e: unknown) => e);
    expect(seen).toEqual([0]);
    expect((error as Error).message).toBe("client went away");
    expect(engine.admission.stats.running).toBe(0);
  });

  test("does free the slot on abort even when the consumer never resumes the stream", async () => {
    const controller = new AbortController();
    const request = speechRequest({ input: INPUT, response_format: "pcm" });
    const iterator = engine.service
      .synthesizeStream(request, { signal: controller.signal })
      .chunks[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    expect(engine.admission.stats.running).toBe(1);
    controller.abort(new Error("client went away"));
    await until(() => engine.admission.stats.running === 0, "the aborted synthesis to free its slot", { everyMs: 1 });
    expect(engine.admission.stats.running).toBe(0);
    expect((await engine.service.synthesize(request)).audio.length).toBeGreaterThan(0);
  });
});
