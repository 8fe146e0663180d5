/**
 * Successful synthesis and transcription through REST, against the whole service started
 * in-process (startServer: real engines, real HTTP). Both engines must reach `ready`: one that
 * does not makes these tests fail, never skip.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startServer } from "../../src/app/server.ts";
import { loadConfig } from "../../src/config/config.ts";
import { setLogSink } from "../../src/log/logger.ts";
import { writeToneCtcPack } from "../support/models/ctc.ts";
import { tempDir, until } from "../support/sawt.ts";
import { call, expectRateHeaders, expectStandard, leftoverUploads, postJson, uploadForm } from "./support.ts";

const data = tempDir("sawt-speech-");
const previousSink = setLogSink(() => undefined);
// The ASR engine serves only with a recogniser pack: the constructed tone recogniser stands in.
await writeToneCtcPack(join(data.path, "models", "tone-ctc"));
const server = await startServer(
  loadConfig({
    env: {
      SAWT_HTTP_PORT: "0",
      SAWT_GRPC_ASR_PORT: "0",
      SAWT_GRPC_TTS_PORT: "0",
      SAWT_DATA_DIR: data.path,
      SAWT_MODELS_DIR: join(data.path, "models"),
    },
  }),
);
const engines = [server.ctx.engines.tts, server.ctx.engines.asr];
await until(() => engines.every((e) => e.snapshot().status !== "initializing"), "the engines to settle", {
  timeoutMs: 120_000,
  everyMs: 100,
});
const base = `http://127.0.0.1:${server.ports.http}`;
const key = server.ctx.keys.create({ name: "speech", rpm: 10_000 }).key;

afterAll(async () => {
  await server.stop();
  setLogSink(previousSink);
  data.remove();
});

const speak = (body: Record<string, unknown>, headers: Record<string, string> = {}, path = "/v1/tts/audio/speech") =>
  postJson(base + path, body, { "X-API-Key": key, ...headers });

const MAGIC: Record<string, { type: string; check: (b: Buffer) => boolean }> = {
  mp3: {
    type: "audio/mpeg",
    check: (b) => b.subarray(0, 3).toString("latin1") === "ID3" || (b[0] === 0xff && (b[1]! & 0xe0) === 0xe0),
  },
  wav: {
    type: "audio/wav",
    check: (b) => b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WAVE",
  },
  opus: { type: "audio/ogg", check: (b) => b.subarray(0, 4).toString("latin1") === "OggS" },
  flac: { type: "audio/flac", check: (b) => b.subarray(0, 4).toString("latin1") === "fLaC" },
  aac: { type: "audio/aac", check: (b) => b[0] === 0xff && (b[1]! & 0xf6) === 0xf0 },
  pcm: { type: "audio/pcm", check: (b) => b.length > 0 && b.length % 2 === 0 },
};

async function audio(body: Record<string, unknown>, headers: Record<string, string> = {}, path?: string) {
  const res = await fetch(base + (path ?? "/v1/tts/audio/speech"), {
    method: "POST",
    headers: { "content-type": "application/json", "X-API-Key": key, ...headers },
    body: JSON.stringify(body),
  });
  expect(res.headers.get("x-request-id")).toBeTruthy();
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

test("does bring both engines to ready when the service starts with a voice and a recogniser pack", () => {
  expect(engines.map((e) => e.snapshot())).toMatchObject([
    { name: "tts", status: "ready" },
    { name: "asr", status: "ready" },
  ]);
});

describe("speech with the TTS engine", () => {
  for (const [format, { type, check }] of Object.entries(MAGIC)) {
    test(`does return ${format} audio as ${type} with the D2 headers`, async () => {
      const { res, bytes } = await audio({ input: "مرحبا بكم في خدمة العملاء", response_format: format });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(type);
      expect(check(bytes)).toBe(true);
      expect(res.headers.get("x-tts-voice")).toBe("Yara");
      expect(res.headers.get("x-tts-dialect")).toBe("ar-najdi");
      expect(res.headers.get("x-tts-engine")).toMatch(/^(piper|vits|espeak-ng|cloned)$/);
      expect(Number(res.headers.get("x-sample-rate"))).toBeGreaterThan(0);
      expect(res.headers.get("x-ratelimit-limit")).toBe("10000");
    });
  }

  test("does default to mp3 and resample to sample_rate", async () => {
    expect((await audio({ input: "مرحبا" })).res.headers.get("content-type")).toBe("audio/mpeg");
    const { res, bytes } = await audio({ input: "مرحبا", response_format: "wav", sample_rate: 8000 });
    expect(res.headers.get("x-sample-rate")).toBe("8000");
    expect(bytes.readUInt32LE(24)).toBe(8000);
  });

  test("does fall back from a removed voice to Yara and say why", async () => {
    const { res } = await audio({ input: "مرحبا", voice: "Nouf", response_format: "wav" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-tts-voice")).toBe("Yara");
    expect(res.headers.get("x-tts-fallback")).toBeTruthy();
  });

  test("does let the body dialect beat the X-TTS-Dialect header", async () => {
    const both = await audio(
      { input: "أهلاً", dialect: "ar-egyptian", response_format: "wav" },
      { "X-TTS-Dialect": "ar-najdi" },
    );
    expect(both.res.headers.get("x-tts-dialect")).toBe("ar-egyptian");
    const header = await audio({ input: "أهلاً", response_format: "wav" }, { "X-TTS-Dialect": "ar-egyptian" });
    expect(header.res.headers.get("x-tts-dialect")).toBe("ar-egyptian");
  });

  test("does answer pcm at OpenAI's 24 kHz on the OpenAI alias and at the voice's rate on Sawt's own path", async () => {
    const own = await audio({ input: "مرحبا بكم", response_format: "pcm" });
    const alias = await audio({ input: "مرحبا بكم", response_format: "pcm" }, {}, "/v1/audio/speech");
    const voiceRate = Number(own.res.headers.get("x-sample-rate"));
    expect(voiceRate).not.toBe(24000);
    expect(alias.res.headers.get("x-sample-rate")).toBe("24000");
    // The same speech, resampled: the length scales with the rate.
    expect(Math.abs(alias.bytes.length / own.bytes.length - 24000 / voiceRate)).toBeLessThan(0.01);
    const asked = await audio(
      { input: "مرحبا بكم", response_format: "pcm", sample_rate: 8000 },
      {},
      "/v1/audio/speech",
    );
    expect(asked.res.headers.get("x-sample-rate")).toBe("8000");
  });

  test("does serve the alias, Bearer auth and legacy /synthesize (WAV by default)", async () => {
    expect((await audio({ input: "مرحبا", response_format: "wav" }, {}, "/v1/audio/speech")).res.status).toBe(200);
    expect(
      (await audio({ input: "مرحبا", response_format: "wav" }, { "X-API-Key": "", Authorization: `Bearer ${key}` })).res
        .status,
    ).toBe(200);
    const legacy = await audio({ text: "مرحبا", speaker: "Yara" }, {}, "/synthesize");
    expect(legacy.res.status).toBe(200);
    expect(legacy.res.headers.get("content-type")).toBe("audio/wav");
    expect(legacy.res.headers.get("deprecation")).toMatch(/^@\d+$/);
  });

  test("does keep serving after a client gives up mid-request", async () => {
    const controller = new AbortController();
    const pending = fetch(base + "/v1/tts/audio/speech", {
      method: "POST",
      headers: { "X-API-Key": key, "content-type": "application/json" },
      body: JSON.stringify({ input: "جملة طويلة ".repeat(400), response_format: "wav" }),
      signal: controller.signal,
    }).catch((error) => error);
    await Bun.sleep(20);
    controller.abort();
    await pending;
    expect((await speak({ input: "مرحبا", response_format: "wav" })).status).toBe(200);
  });
});

describe("transcription with the ASR engine", () => {
  let wav: Buffer;

  test("does transcribe a synthesized wav into the D14 json", async () => {
    wav = (await audio({ input: "مرحبا بكم في خدمة العملاء", response_format: "wav" })).bytes;
    const reply = await call(base + "/v1/asr/audio/transcriptions", {
      method: "POST",
      headers: { "X-API-Key": key },
      body: uploadForm({ name: "call.wav", data: wav }, { language: "ar" }),
    });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.json).sort()).toEqual(["dialect", "duration", "language", "text"]);
    expect(reply.json.language).toBe("ar");
    expect(typeof reply.json.text).toBe("string");
    expect(reply.json.duration).toBeGreaterThan(0);
    expectRateHeaders(reply, 10_000);
    expect(leftoverUploads(data.path)).toEqual([]);
  });

  for (const [format, type] of [
    ["text", "text/plain"],
    ["verbose_json", "application/json"],
    ["srt", "application/x-subrip"],
    ["vtt", "text/vtt"],
  ] as const) {
    for (const route of ["/v1/asr/transcribe", "/v1/audio/transcriptions"]) {
      test(`does render ${format} on ${route}`, async () => {
        const reply = await call(base + route, {
          method: "POST",
          headers: { "X-API-Key": key },
          body: uploadForm({ name: "call.wav", data: wav }, { response_format: format }),
        });
        expect(reply.status).toBe(200);
        expect(reply.header("content-type")).toStartWith(type);
        if (format === "verbose_json") expect(Array.isArray(reply.json.segments)).toBe(true);
        if (format === "vtt") expect(reply.text).toStartWith("WEBVTT");
      });
    }
  }

  test("does answer 400 Couldn't transcribe the file for corrupt audio and delete it", async () => {
    const junk = new Uint8Array(4096).map((_, i) => (i * 131) % 251);
    const reply = await call(base + "/v1/asr/audio/transcriptions", {
      method: "POST",
      headers: { "X-API-Key": key },
      body: uploadForm({ name: "broken.mp3", data: junk }),
    });
    expectStandard(reply, 400, /^Couldn't transcribe the file: .+/);
    expect(leftoverUploads(data.path)).toEqual([]);
  });
});
