/**
 * Voice cloning end to end over real HTTP (D17): with a speaker-encoder pack and a Yara pack whose
 * graph takes a speaker embedding, a key clones a voice from a sample, polls it to ready, and
 * speaks with it: the embedding reaches the model (the constructed voice's amplitude encodes
 * embedding[0]). Another key can neither see nor use the voice.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { encodeWav } from "../../src/audio/wav.ts";
import { tone } from "../support/audio.ts";
import { SPEAKER_EMBEDDING_DIM, writeSpeakerEncoderPack } from "../support/models/speaker-encoder.ts";
import { EMBEDDING_GAIN, TONE, writePiperPack } from "../support/models/tone-voice.ts";
import { startSawt, tempDir, until, waitForStatus, type SawtProcess } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap, wavToFloat } from "../tts/support.ts";

const models = tempDir("sawt-cloning-");
let sawt: SawtProcess;
let keyA: string;
let keyB: string;

beforeAll(async () => {
  await writeSpeakerEncoderPack(models.path);
  await writePiperPack(join(models.path, "yara"), {
    name: "ar_text",
    sampleRate: 16000,
    phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
    phonemeType: "text",
    embeddingDim: SPEAKER_EMBEDDING_DIM,
  });
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models.path } });
  await waitForStatus(`${sawt.baseUrl}/v1/tts/health`);
  keyA = (await sawt.createKey({ name: "a" })).key;
  keyB = (await sawt.createKey({ name: "b" })).key;
});
afterAll(async () => {
  await sawt.stop();
  models.remove();
});

async function speak(key: string, voice: string): Promise<{ response: Response; peak: number }> {
  const response = await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
    method: "POST",
    headers: { "X-API-Key": key, "Content-Type": "application/json" },
    body: JSON.stringify({ input: "مرحبا", voice, response_format: "wav" }),
  });
  expect(response.status).toBe(200);
  const { samples } = wavToFloat(new Uint8Array(await response.clone().arrayBuffer()));
  return { response, peak: samples.reduce((max, v) => Math.max(max, Math.abs(v)), 0) };
}

describe("voice cloning", () => {
  test("does clone a voice and speak with its embedding, for its key only", async () => {
    const health = (await (await fetch(`${sawt.baseUrl}/v1/tts/health`)).json()) as { cloning: { available: boolean } };
    expect(health.cloning.available).toBe(true);

    const form = new FormData();
    form.append("name", "صوت الوكيلة");
    form.append("files", new Blob([encodeWav(tone(250, 2, 16000, 0.5), 16000)]), "sample-1.wav");
    form.append("files", new Blob([encodeWav(tone(260, 1.5, 16000, 0.5), 16000)]), "sample-2.wav");
    const created = await fetch(`${sawt.baseUrl}/v1/tts/voices`, {
      method: "POST",
      headers: { "X-API-Key": keyA },
      body: form,
    });
    expect(created.status).toBe(202);
    const voice = (await created.json()) as { voice_id: string; status: string };
    expect(voice.status).toBe("training");
    expect(created.headers.get("location")).toBe(`/v1/tts/voices/${voice.voice_id}`);

    const trained = async () => {
      const reply = await fetch(`${sawt.baseUrl}/v1/tts/voices/${voice.voice_id}`, { headers: { "X-API-Key": keyA } });
      const { status } = (await reply.json()) as { status: string };
      return status === "training" ? undefined : status;
    };
    const status = await until(trained, "the voice to finish training", { everyMs: 25 });
    expect(status).toBe("ready");
    const listed = (await (
      await fetch(`${sawt.baseUrl}/v1/tts/voices`, { headers: { "X-API-Key": keyA } })
    ).json()) as { voices: Array<{ voice_id: string }> };
    expect(listed.voices.map((v) => v.voice_id)).toContain(voice.voice_id);

    const builtin = await speak(keyA, "Yara");
    expect(builtin.response.headers.get("x-tts-engine")).toBe("piper");
    expect(builtin.peak).toBeCloseTo(TONE.AMPLITUDE, 2);

    const cloned = await speak(keyA, voice.voice_id);
    expect(cloned.response.headers.get("x-tts-voice")).toBe(voice.voice_id);
    expect(cloned.response.headers.get("x-tts-engine")).toBe("cloned");
    expect(cloned.response.headers.get("x-tts-fallback")).toBeNull();
    // The amplitude reads embedding[0] back: a unit-norm embedding of a low voice, so in (0, 1].
    const firstComponent = (cloned.peak - TONE.AMPLITUDE) / EMBEDDING_GAIN;
    expect(firstComponent).toBeGreaterThan(0.1);
    expect(firstComponent).toBeLessThanOrEqual(1.0001);

    // Another key: not listed, 404 on poll, and using the id falls back like any unknown voice.
    expect(
      (await fetch(`${sawt.baseUrl}/v1/tts/voices/${voice.voice_id}`, { headers: { "X-API-Key": keyB } })).status,
    ).toBe(404);
    const stranger = await speak(keyB, voice.voice_id);
    expect(stranger.response.headers.get("x-tts-voice")).toBe("Yara");
    expect(stranger.response.headers.get("x-tts-fallback")).toContain("cloned voice not found");
    expect(stranger.peak).toBeCloseTo(TONE.AMPLITUDE, 2);

    // Deleted: the owner's requests fall back too.
    expect(
      (
        await fetch(`${sawt.baseUrl}/v1/tts/voices/${voice.voice_id}`, {
          method: "DELETE",
          headers: { "X-API-Key": keyA },
        })
      ).status,
    ).toBe(200);
    expect((await speak(keyA, voice.voice_id)).response.headers.get("x-tts-voice")).toBe("Yara");
  });
});
