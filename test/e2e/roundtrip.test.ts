/**
 * The headline test: text → TTS → mp3 → ASR → the same text, through the running service
 * (`sawt serve` as a child process, real HTTP, real ffmpeg, real onnxruntime). The voice is the
 * constructed tone voice installed as Yara's Piper pack with `phoneme_type: text`, so each letter
 * becomes a tone; the recogniser is the constructed NeMo CTC pack that maps those tones back to
 * letters. A wrong id map, sample rate, speed, encoder setting, decode path or CTC decoding on
 * either side changes the text that comes back.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeLetterVoicePack, writeToneCtcPack } from "../support/models/ctc.ts";
import { startSawt, until, type SawtProcess } from "../support/sawt.ts";

const models = mkdtempSync(join(tmpdir(), "sawt-roundtrip-models-"));
let sawt: SawtProcess;
let key: string;

beforeAll(async () => {
  await writeLetterVoicePack(join(models, "yara"));
  await writeToneCtcPack(join(models, "tone-ctc"));
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models } });
  key = (await sawt.createKey({ name: "roundtrip", rpm: 10_000 })).key;
  const ready = async () => (await fetch(`${sawt.baseUrl}/ready`)).status === 200;
  await until(ready, "the service to be ready", { timeoutMs: 30_000, everyMs: 100 });
});

afterAll(async () => {
  await sawt?.stop();
  rmSync(models, { recursive: true, force: true });
});

async function speak(input: string, extra: Record<string, unknown> = {}): Promise<Uint8Array> {
  const res = await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
    method: "POST",
    headers: { "content-type": "application/json", "X-API-Key": key },
    body: JSON.stringify({ input, voice: "Yara", response_format: "mp3", ...extra }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("x-tts-engine")).toBe("piper");
  return new Uint8Array(await res.arrayBuffer());
}

async function transcribe(audio: Uint8Array, name: string): Promise<Record<string, unknown>> {
  const form = new FormData();
  form.append("file", new Blob([audio]), name);
  form.append("language", "ar");
  const res = await fetch(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
    method: "POST",
    headers: { "X-API-Key": key },
    body: form,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe("text → TTS → mp3 → ASR → text", () => {
  test.each(["مرحبا بكم في خدمة العملاء", "السلام عليكم ورحمة الله", "شكرا لكم"])("does give back %s", async (text) => {
    const mp3 = await speak(text);
    const transcript = await transcribe(mp3, "speech.mp3");
    expect(transcript).toMatchObject({ text, language: "ar", dialect: null });
  });

  test.each([0.5, 1.5, 2])("does give back the same text at speed %p", async (speed) => {
    const text = "مرحبا بكم في خدمة العملاء";
    expect((await transcribe(await speak(text, { speed }), "paced.mp3")).text).toBe(text);
  });

  test("does give back the same text from wav and opus output too", async () => {
    const text = "السلام عليكم";
    expect((await transcribe(await speak(text, { response_format: "wav" }), "speech.wav")).text).toBe(text);
    expect((await transcribe(await speak(text, { response_format: "opus" }), "speech.ogg")).text).toBe(text);
  });
});
