/**
 * ASR through the running service (`sawt serve` as a child process, real HTTP): the same
 * recording in all nine upload types gives the same text; every unusable upload gets its contract
 * error while the service stays healthy and no upload is left on disk; without a recogniser pack
 * the ASR engine is reported unavailable but readiness does not wait for it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { UPLOAD_EXTENSIONS } from "../../src/asr/types.ts";
import { ffmpegSync } from "../support/audio.ts";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { startSawt, until, type SawtProcess } from "../support/sawt.ts";
import { noRecognizerReason } from "../../src/asr/loader.ts";
import { call, expectStandard, leftoverUploads, uploadForm } from "../rest/support.ts";
import { concat, encodeFile, ENCODINGS, modelsDir, silence } from "./support.ts";

const TEXT = "مرحبا بكم في خدمة العملاء";
const RATE = 22050;

let models: ReturnType<typeof modelsDir>;
let sawt: SawtProcess;
let key: string;
const files: Record<string, Uint8Array> = {};

beforeAll(async () => {
  models = modelsDir();
  await writeToneCtcPack(join(models.dir, "tone-ctc"));
  const recording = concat(silence(0.3, RATE), letterToneAudio(TEXT, RATE), silence(0.5, RATE));
  for (const extension of UPLOAD_EXTENSIONS)
    files[extension] = readFileSync(
      encodeFile(recording, RATE, join(models.dir, `call.${extension}`), ENCODINGS[extension]!),
    );
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models.dir } });
  key = (await sawt.createKey({ name: "asr", rpm: 10_000 })).key;
  const healthy = async () => (await fetch(`${sawt.baseUrl}/v1/asr/health`)).status === 200;
  await until(healthy, "the ASR engine to serve", { timeoutMs: 30_000, everyMs: 100 });
});

afterAll(async () => {
  await sawt?.stop();
  models?.remove();
});

const transcribe = (name: string, data: Uint8Array | string, fields: Record<string, string> = {}) =>
  call(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
    method: "POST",
    headers: { "X-API-Key": key },
    body: uploadForm({ name, data }, fields),
  });

async function expectHealthy(): Promise<void> {
  const health = await call(`${sawt.baseUrl}/v1/asr/health`);
  expect(health.status).toBe(200);
  expect(health.json.status).toBe("healthy");
  expect(leftoverUploads(sawt.dataDir)).toEqual([]);
}

describe("ASR over HTTP", () => {
  test("does report the loaded recogniser in /v1/asr/health", async () => {
    const health = await call(`${sawt.baseUrl}/v1/asr/health`);
    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({
      status: "healthy",
      enabled: true,
      recognizer: "tone-ctc",
      vad: "energy",
      broken_packs: [],
    });
  });

  test.each([...UPLOAD_EXTENSIONS])(
    "does transcribe the same recording uploaded as .%s to the same text",
    async (extension) => {
      const reply = await transcribe(`call.${extension}`, files[extension]!, { language: "ar" });
      expect(reply.status).toBe(200);
      expect(reply.json).toEqual({ text: TEXT, language: "ar", dialect: null, duration: expect.any(Number) });
      expect(reply.json.duration).toBeCloseTo(TEXT.length * 0.16 + 0.8 + 0.32, 0);
    },
  );

  test("does give segments and words in verbose_json and cues in srt", async () => {
    const verbose = await transcribe("call.wav", files.wav!, { response_format: "verbose_json" });
    expect(verbose.json.segments.length).toBe(1);
    expect(verbose.json.segments[0].text).toBe(TEXT);
    expect(verbose.json.segments[0].words.map((w: { word: string }) => w.word).join(" ")).toBe(TEXT);
    const srt = await transcribe("call.wav", files.wav!, { response_format: "srt" });
    expect(srt.text).toContain(`\n${TEXT}\n`);
    expect(srt.text).toStartWith("1\n00:00:00,");
  });

  const bad: [string, string, () => Uint8Array | string, number, string | RegExp][] = [
    ["an empty file", "empty.wav", () => "", 400, "Couldn't transcribe the file: audio is empty"],
    [
      "random bytes with an allowed extension",
      "noise.flac",
      () => new Uint8Array(8192).map((_, i) => (i * 7919 + 13) % 256),
      400,
      "Couldn't transcribe the file: unsupported or corrupt audio",
    ],
    [
      "an mp3 truncated inside its first frame",
      "cut.mp3",
      () => files.mp3!.subarray(0, 200),
      400,
      "Couldn't transcribe the file: unsupported or corrupt audio",
    ],
    [
      "a video-only mp4",
      "video.mp4",
      () => {
        const path = join(models.dir, "video-only.mp4");
        ffmpegSync([
          "-f",
          "lavfi",
          "-i",
          "testsrc=duration=1:size=64x64:rate=5",
          "-c:v",
          "mpeg4",
          "-an",
          "-f",
          "mp4",
          path,
        ]);
        return readFileSync(path);
      },
      400,
      "Couldn't transcribe the file: no audio stream",
    ],
    [
      "a concat playlist pointing at real audio",
      "list.ogg",
      () => `ffconcat version 1.0\nfile ${join(models.dir, "call.mp3")}\n`,
      400,
      "Couldn't transcribe the file: unsupported or corrupt audio",
    ],
    ["a wrong extension", "call.txt", () => files.wav!, 400, "Invalid file type"],
    ["a 101 MB upload", "big.wav", () => new Uint8Array(101 * 1024 * 1024), 413, /MB/],
  ];

  test.each(bad)(
    "does answer %s with its contract error and stay healthy",
    async (_what, name, data, status, detail) => {
      expectStandard(await transcribe(name, data()), status, detail);
      await expectHealthy();
      expect((await transcribe("call.ogg", files.ogg!)).json.text).toBe(TEXT);
    },
  );
});

describe("ASR over HTTP without a recogniser pack", () => {
  test("does report the engine disabled with why and what to install, in health and on transcription, while /ready stays ready", async () => {
    const empty = modelsDir();
    const bare = await startSawt({ env: { SAWT_MODELS_DIR: empty.dir } });
    try {
      const settled = async () => {
        const health = await call(`${bare.baseUrl}/v1/asr/health`);
        return health.json.state === "initializing" ? undefined : health;
      };
      const health = await until(settled, "the ASR engine to settle", { timeoutMs: 30_000, everyMs: 100 });
      expect(health.status).toBe(503);
      expect(health.json).toMatchObject({
        status: "unavailable",
        state: "disabled",
        detail: noRecognizerReason(false),
        enabled: false,
      });
      // /ready also waits for the TTS engine, which may still be starting on a loaded machine.
      const ready = await until(
        async () => {
          const reply = await call(`${bare.baseUrl}/ready`);
          const starting = Object.values((reply.json.engines ?? {}) as Record<string, string>).includes("initializing");
          return starting ? undefined : reply;
        },
        "the other engines to settle",
        { timeoutMs: 30_000, everyMs: 100 },
      );
      expect(ready.status).toBe(200);
      const k = (await bare.createKey({ name: "bare" })).key;
      const reply = await call(`${bare.baseUrl}/v1/asr/audio/transcriptions`, {
        method: "POST",
        headers: { "X-API-Key": k },
        body: uploadForm({ name: "call.wav", data: files.wav! }),
      });
      expectStandard(reply, 503, noRecognizerReason(false));
      expect(reply.json.detail).not.toContain("not initialized");
      expect(reply.json.detail).toContain("docs/arabic-models.md");
      expect(reply.header("retry-after")).toBeNull();
      expect(leftoverUploads(bare.dataDir)).toEqual([]);
    } finally {
      await bare.stop();
      empty.remove();
    }
  });
});
