/**
 * The voice library over real HTTP (D17): listing with built-ins, 501 before any upload is read
 * when cloning is unavailable, privacy between keys (404), auth on every route.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { encodeWav } from "../../src/audio/wav.ts";
import { tone } from "../support/audio.ts";
import { writeSpeakerEncoderPack } from "../support/models/speaker-encoder.ts";
import { startSawt, tempDir, type SawtProcess } from "../support/sawt.ts";

const models = tempDir("sawt-voice-models-");
let sawt: SawtProcess;
let keyA: string;
let keyB: string;

beforeAll(async () => {
  mkdirSync(models.path, { recursive: true });
  await writeSpeakerEncoderPack(models.path);
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models.path } });
  keyA = (await sawt.createKey({ name: "a" })).key;
  keyB = (await sawt.createKey({ name: "b" })).key;
});
afterAll(async () => {
  await sawt.stop();
  models.remove();
});

function sampleForm(): FormData {
  const form = new FormData();
  form.append("name", "وكيلة");
  form.append("files", new Blob([encodeWav(tone(300, 2, 16000), 16000)]), "sample.wav");
  return form;
}

describe("voices over HTTP", () => {
  test("does list the four built-in voices for any key", async () => {
    const response = await fetch(`${sawt.baseUrl}/v1/tts/voices`, { headers: { "X-API-Key": keyA } });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toBeTruthy();
    expect(response.headers.get("x-ratelimit-limit")).toBeTruthy();
    const body = (await response.json()) as { voices: Array<{ voice_id: string; type: string }> };
    expect(body.voices.filter((v) => v.type === "builtin").map((v) => v.voice_id)).toEqual([
      "Yara",
      "Sherine",
      "Myriam",
      "Yara_en",
    ]);
  });

  test("does answer 501 in the standard shape when no TTS pack takes a speaker embedding, leaving no upload behind", async () => {
    const response = await fetch(`${sawt.baseUrl}/v1/tts/voices`, {
      method: "POST",
      headers: { "X-API-Key": keyA },
      body: sampleForm(),
    });
    expect(response.status).toBe(501);
    const body = (await response.json()) as { error: string; detail: string; code: string };
    expect(body).toEqual({
      error: "http_error",
      detail: expect.stringContaining("Voice cloning is not available"),
      code: "HTTP_501",
    });
    expect(response.headers.get("x-request-id")).toBeTruthy();
    const tmp = join(sawt.dataDir, "tmp");
    expect(readdirSync(tmp, { withFileTypes: true }).filter((e) => e.isFile())).toHaveLength(0);
  });

  test("does answer 404 for an unknown or another key's voice and 401 without a key", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${sawt.baseUrl}/v1/tts/voices/voice_doesnotexist`, {
        method,
        headers: { "X-API-Key": keyB },
      });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe("HTTP_404");
    }
    const anonymous = await fetch(`${sawt.baseUrl}/v1/tts/voices`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe("Bearer");
  });
});
