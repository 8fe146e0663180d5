/**
 * G.711 telephony output (D19, issue #14): `encoding` pcm_mulaw / pcm_alaw at 8 kHz on REST,
 * WebSocket and gRPC, decoded by the real ffmpeg (raw `-f mulaw`/`-f alaw`, and WAV by its format
 * tag) to the duration of the same speech in linear PCM; bad values answer in the contract shapes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { bearer, clients, collect, waitPortsServing } from "../grpc/client.ts";
import { ffmpegSync, ffprobe } from "../support/audio.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { startSawt, tempDir, waitForStatus, type SawtProcess } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap } from "./support.ts";
import { postSpeech } from "../support/http-helpers.ts";

const INPUT = "مرحبا بكم في خدمة العملاء. كيف يمكنني مساعدتك اليوم؟";
const dir = tempDir("sawt-tts-telephony-");
let sawt: SawtProcess;
let grpc: ReturnType<typeof clients>;
let key: string;

function speak(body: Record<string, unknown>): Promise<Response> {
  return postSpeech(sawt.baseUrl, key, { input: INPUT, ...body });
}

/** Seconds of audio ffmpeg decodes from `bytes` read with `inputArgs`. */
function seconds(bytes: Uint8Array, inputArgs: string[]): number {
  return (
    ffmpegSync([...inputArgs, "-i", "pipe:0", "-f", "s16le", "-ar", "8000", "-ac", "1", "pipe:1"], bytes).byteLength /
    2 /
    8000
  );
}

let linearSeconds: number;

beforeAll(async () => {
  const models = join(dir.path, "models");
  await writePiperPack(join(models, "yara"), {
    name: "ar_text",
    sampleRate: 16000,
    phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
    phonemeType: "text",
  });
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models } });
  await waitForStatus(`${sawt.baseUrl}/v1/tts/health`);
  await waitPortsServing(sawt.ports, ["tts"]);
  grpc = clients(sawt.ports.grpc_tts);
  key = (await sawt.createKey({ name: "telephony", rpm: 10_000 })).key;
  const linear = await speak({ response_format: "pcm", sample_rate: 8000 });
  linearSeconds = (await linear.arrayBuffer()).byteLength / 2 / 8000;
  expect(linearSeconds).toBeGreaterThan(2);
});

afterAll(async () => {
  grpc.close();
  await sawt.stop("SIGKILL");
  dir.remove();
});

describe("G.711 output", () => {
  for (const [encoding, ffmpegFormat, contentType, codec] of [
    ["pcm_mulaw", "mulaw", "audio/pcmu", "pcm_mulaw"],
    ["pcm_alaw", "alaw", "audio/pcma", "pcm_alaw"],
  ] as const) {
    test(`does answer raw ${encoding} at 8 kHz that ffmpeg decodes as -f ${ffmpegFormat} when pcm asks for it`, async () => {
      const response = await speak({ response_format: "pcm", sample_rate: 8000, encoding });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(contentType);
      expect(response.headers.get("x-sample-rate")).toBe("8000");
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect(bytes.byteLength / 8000).toBeCloseTo(linearSeconds, 3); // one byte per sample
      expect(seconds(bytes, ["-f", ffmpegFormat, "-ar", "8000", "-ac", "1"])).toBeCloseTo(linearSeconds, 3);
    });

    test(`does answer a WAV with the ${encoding} format tag when wav asks for it`, async () => {
      const response = await speak({ response_format: "wav", sample_rate: 8000, encoding });
      expect(response.headers.get("content-type")).toBe("audio/wav");
      const bytes = new Uint8Array(await response.arrayBuffer());
      const view = new DataView(bytes.buffer);
      expect(view.getUint16(20, true)).toBe(encoding === "pcm_mulaw" ? 7 : 6); // WAVE format tag
      expect(view.getUint16(34, true)).toBe(8); // bits per sample
      const path = join(dir.path, `${encoding}.wav`);
      await Bun.write(path, bytes);
      const probe = ffprobe(path);
      expect([probe.codecName, probe.sampleRate, probe.channels]).toEqual([codec, 8000, 1]);
      expect(seconds(bytes, [])).toBeCloseTo(linearSeconds, 3);
    });
  }

  test("does stream mu-law over the WebSocket and gRPC when the request names the encoding", async () => {
    const rest = new Uint8Array(
      await (await speak({ response_format: "pcm", sample_rate: 8000, encoding: "pcm_mulaw" })).arrayBuffer(),
    );
    const online = await collect(
      grpc.tts.SynthesizeOnline({ text: INPUT, sample_rate_hz: 8000, encoding: "MULAW" }, bearer(key)),
    );
    expect(online.error).toBeUndefined();
    expect(online.messages[0]).toMatchObject({ content_type: "audio/pcmu", sample_rate_hz: 8000 });
    expect(Buffer.concat(online.messages.map((m) => m.audio)).equals(Buffer.from(rest))).toBe(true);
    const frames = await new Promise<{ start: Record<string, unknown>; audio: Buffer }>((resolve, reject) => {
      const ws = new WebSocket(`${sawt.baseUrl.replace("http", "ws")}/v1/tts/ws`, {
        headers: { "X-API-Key": key },
      } as unknown as string[]);
      ws.binaryType = "arraybuffer";
      let start: Record<string, unknown> = {};
      const audio: Buffer[] = [];
      ws.onopen = () => ws.send(JSON.stringify({ input: INPUT, sample_rate: 8000, encoding: "pcm_mulaw" }));
      ws.onmessage = (event) => {
        if (typeof event.data !== "string") return void audio.push(Buffer.from(event.data as ArrayBuffer));
        const message = JSON.parse(event.data) as Record<string, unknown>;
        if (message.type === "start") start = message;
        if (message.type === "end" || message.type === "error") {
          ws.close();
          resolve({ start, audio: Buffer.concat(audio) });
        }
      };
      ws.onerror = () => reject(new Error("websocket error"));
    });
    expect(frames.start).toMatchObject({ content_type: "audio/pcmu", sample_rate: 8000 });
    expect(frames.audio.equals(Buffer.from(rest))).toBe(true);
  });

  test("does answer 422 naming body.encoding when the encoding is not a string", async () => {
    const response = await speak({ response_format: "pcm", encoding: 7 });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { errors: unknown }).errors).toEqual([
      { field: "body.encoding", message: "Expected a string" },
    ]);
  });

  test("does answer 400 listing the encodings when the encoding is unknown", async () => {
    const response = await speak({ response_format: "pcm", encoding: "ulaw" });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: "http_error",
      detail: "Invalid encoding. Allowed: pcm_alaw, pcm_mulaw, pcm_s16le",
      code: "HTTP_400",
    });
  });

  test("does answer 400 when a G.711 encoding is asked of a compressed format", async () => {
    const response = await speak({ response_format: "mp3", encoding: "pcm_alaw" });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { detail: string }).detail).toBe(
      "Invalid encoding for mp3: pcm_alaw applies to pcm and wav only",
    );
  });

  test("does answer INVALID_ARGUMENT over gRPC when the encoding enum value is unknown", async () => {
    const online = await collect(grpc.tts.SynthesizeOnline({ text: INPUT, encoding: 9 }, bearer(key)));
    expect(online.error?.code).toBe(3);
    expect(online.error?.details).toBe("Invalid encoding. Allowed: pcm_alaw, pcm_mulaw, pcm_s16le");
  });
});
