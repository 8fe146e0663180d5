/**
 * OpenAI Realtime transcription over a real WebSocket against the real server with the tone CTC
 * recogniser: a plain client following OpenAI's documented events streams tone speech in 20 ms
 * chunks (pcm16 at 24 kHz, g711_ulaw at 8 kHz); deltas arrive before the audio ends, speech
 * started/stopped bracket the speech, and `.completed` carries the text REST gives for the file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { encodeG711 } from "../../src/audio/g711.ts";
import { floatToInt16, int16ToBytes } from "../../src/audio/wav.ts";
import { uploadForm } from "../rest/support.ts";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { startSawt, type SawtProcess, waitForStatus } from "../support/sawt.ts";
import { concat, encodeFile, ENCODINGS, modelsDir, silence } from "./support.ts";
import { connect, type TestSocket } from "./ws-client.ts";

const TEXT = "سلام عليكم";
const speech = (rate: number) => concat(silence(0.6, rate), letterToneAudio(TEXT, rate), silence(1.2, rate));

let models: ReturnType<typeof modelsDir>;
let sawt: SawtProcess;
let key: string;
let wsBase: string;

beforeAll(async () => {
  models = modelsDir();
  await writeToneCtcPack(join(models.dir, "tone-ctc"));
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models.dir, SAWT_STREAMING_PARTIAL_INTERVAL_MS: "300" } });
  // The ports answer before the engine is warm; on a loaded machine the first session would get 503.
  await waitForStatus(`${sawt.baseUrl}/v1/asr/health`);
  key = (await sawt.createKey({ name: "realtime", rpm: 10_000 })).key;
  wsBase = sawt.baseUrl.replace(/^http/, "ws");
});

afterAll(async () => {
  await sawt?.stop("SIGKILL");
  models?.remove();
});

/** The REST transcript of the same audio sent as a WAV file. */
async function restText(samples: Float32Array, rate: number): Promise<string> {
  const path = encodeFile(samples, rate, join(models.dir, `rest-${rate}.wav`), ENCODINGS.wav!);
  const response = await fetch(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
    method: "POST",
    headers: { "x-api-key": key },
    body: uploadForm({ name: "call.wav", data: await Bun.file(path).bytes() }),
  });
  return ((await response.json()) as { text: string }).text;
}

/** Sends `bytes` as base64 appends of `chunkBytes` (20 ms), a little faster than real time; returns when the last was sent. */
async function stream(client: TestSocket, bytes: Uint8Array, chunkBytes: number): Promise<number> {
  for (let at = 0; at < bytes.length; at += chunkBytes) {
    client.sendJson({
      type: "input_audio_buffer.append",
      audio: Buffer.from(bytes.subarray(at, at + chunkBytes)).toString("base64"),
    });
    await Bun.sleep(5);
  }
  return performance.now();
}

describe("realtime transcription (OpenAI events)", () => {
  test.each([
    ["pcm16 at 24 kHz (GA session.update)", 24000, "ga"],
    ["g711_ulaw at 8 kHz (beta transcription_session.update)", 8000, "beta"],
  ] as const)(
    "does stream %s: deltas before the audio ends, speech bracketed, completed = REST",
    async (_name, rate, shape) => {
      const audio = speech(rate);
      const client = await connect(`${wsBase}/v1/realtime?intent=transcription`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const created = await client.next(shape === "ga" ? "session.created" : "session.created");
      expect(created.session).toMatchObject({
        type: "transcription",
        audio: { input: { format: { type: "audio/pcm", rate: 24000 } } },
      });
      let bytes: Uint8Array;
      if (shape === "ga") {
        client.sendJson({
          type: "session.update",
          session: {
            type: "transcription",
            audio: {
              input: {
                format: { type: "audio/pcm", rate: 24000 },
                transcription: { model: "sawt", language: "ar" },
                turn_detection: {
                  type: "server_vad",
                  threshold: 0.5,
                  prefix_padding_ms: 300,
                  silence_duration_ms: 500,
                },
              },
            },
          },
        });
        expect((await client.next("session.updated")).session.audio.input.format).toEqual({
          type: "audio/pcm",
          rate: 24000,
        });
        bytes = int16ToBytes(floatToInt16(audio));
      } else {
        client.sendJson({
          type: "transcription_session.update",
          session: {
            input_audio_format: "g711_ulaw",
            input_audio_transcription: { model: "sawt", language: "ar" },
            turn_detection: { type: "server_vad", silence_duration_ms: 500 },
          },
        });
        expect((await client.next("transcription_session.updated")).session).toMatchObject({
          input_audio_format: "g711_ulaw",
          turn_detection: { type: "server_vad", silence_duration_ms: 500 },
        });
        bytes = encodeG711(floatToInt16(audio), "pcm_mulaw");
      }
      const chunk = ((rate * 20) / 1000) * (shape === "ga" ? 2 : 1);
      const lastSent = await stream(client, bytes, chunk);
      const completed = await client.next("conversation.item.input_audio_transcription.completed");
      const types = client.events.map((e) => e.type);
      expect(types).not.toContain("error");
      const started = client.events.find((e) => e.type === "input_audio_buffer.speech_started");
      const stopped = client.events.find((e) => e.type === "input_audio_buffer.speech_stopped");
      const committed = client.events.find((e) => e.type === "input_audio_buffer.committed");
      // Speech starts after the leading silence (less the 300 ms prefix) and stops after the tones end.
      const speechStartMs = 600;
      const speechEndMs = 600 + (letterToneAudio(TEXT, rate).length / rate) * 1000;
      expect(started.audio_start_ms).toBeLessThanOrEqual(speechStartMs);
      expect(started.audio_start_ms).toBeGreaterThanOrEqual(speechStartMs - 300 - 40);
      expect(stopped.audio_end_ms).toBeGreaterThanOrEqual(speechEndMs);
      expect(types.indexOf("input_audio_buffer.speech_started")).toBeLessThan(
        types.indexOf("input_audio_buffer.speech_stopped"),
      );
      expect(types.indexOf("input_audio_buffer.speech_stopped")).toBeLessThan(
        types.indexOf("input_audio_buffer.committed"),
      );
      expect(
        [started.item_id, stopped.item_id, committed.item_id, completed.item_id].every((id) => id === started.item_id),
      ).toBe(true);
      const deltas = client.events
        .map((e, i) => [e, client.times[i]] as const)
        .filter(([e]) => e.type === "conversation.item.input_audio_transcription.delta");
      expect(deltas.length).toBeGreaterThan(0);
      expect(deltas[0]![1]).toBeLessThan(lastSent);
      expect(
        deltas.every(([e]) => e.item_id === completed.item_id && e.content_index === 0 && typeof e.delta === "string"),
      ).toBe(true);
      expect(completed).toMatchObject({ content_index: 0, transcript: await restText(audio, rate), dialect: null });
      expect(completed.transcript).toBe(TEXT);
      expect(completed.start).toBeCloseTo(started.audio_start_ms / 1000, 2);
      expect(completed.end).toBeCloseTo(stopped.audio_end_ms / 1000, 2);
      client.ws.close();
      await client.closed;
    },
  );

  test("does take the key from the browser subprotocol and echo realtime", async () => {
    const client = await connect(`${wsBase}/v1/asr/realtime`, {
      protocols: ["realtime", `openai-insecure-api-key.${key}`],
    });
    await client.next("session.created");
    expect(client.ws.protocol).toBe("realtime");
    client.ws.close();
  });

  test("does transcribe client commits when turn_detection is null", async () => {
    const client = await connect(`${wsBase}/v1/asr/realtime`, { headers: { "x-api-key": key } });
    client.sendJson({
      type: "session.update",
      session: {
        type: "transcription",
        audio: { input: { format: { type: "audio/pcm", rate: 16000 }, turn_detection: null } },
      },
    });
    await client.next("session.updated");
    client.sendJson({ type: "input_audio_buffer.commit", event_id: "empty" });
    expect((await client.next("error")).error).toMatchObject({
      type: "invalid_request_error",
      code: "input_audio_buffer_commit_empty",
      event_id: "empty",
    });
    await stream(client, int16ToBytes(floatToInt16(speech(16000))), 640);
    client.sendJson({ type: "input_audio_buffer.commit" });
    const completed = await client.next("conversation.item.input_audio_transcription.completed");
    expect(completed.transcript).toBe(TEXT);
    expect(client.events.some((e) => e.type === "input_audio_buffer.speech_started")).toBe(false);
    expect((await client.next("input_audio_buffer.committed")).item_id).toBe(completed.item_id);
    client.ws.close();
  });

  test("does refuse an upgrade without a key with the REST 401", async () => {
    const response = await fetch(`${sawt.baseUrl}/v1/realtime?intent=transcription`, {
      headers: {
        upgrade: "websocket",
        connection: "Upgrade",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        "sec-websocket-version": "13",
      },
    });
    expect(response.status).toBe(401);
  });
});
