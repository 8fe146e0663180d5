/**
 * Issue #19 acceptance 2: TTS output in mp3, opus, flac, wav, pcm and 8 kHz telephony (pcm, μ-law wav)
 * is encoded in-process, buffered and streamed alike: the count of child processes Sawt started
 * (src/audio/process.ts, the only way it starts ffmpeg) does not move while the real service
 * answers, and the real ffmpeg still decodes every answer to the right length.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { processesStartedCount } from "../../src/audio/process.ts";
import { ffmpegSync } from "../support/audio.ts";
import { startInProcess, type InProcessSawt } from "../support/in-process.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { tempDir } from "../support/sawt.ts";
import { readyService } from "../../src/edge/readiness.ts";
import { ARABIC_TEXT_SYMBOLS, idMap, speechRequest } from "./support.ts";

const INPUT = "مرحبا بكم في خدمة العملاء. كيف يمكنني مساعدتك اليوم؟";
const CASES = [
  { response_format: "mp3" },
  { response_format: "opus" },
  { response_format: "wav" },
  { response_format: "pcm" },
  { response_format: "pcm", sample_rate: 8000 },
  { response_format: "wav", sample_rate: 8000, encoding: "pcm_mulaw" },
  { response_format: "mp3", sample_rate: 8000 },
  { response_format: "opus", sample_rate: 8000 },
  { response_format: "flac" },
  { response_format: "flac", sample_rate: 16000 },
] as const;

describe("TTS output without child processes", () => {
  const dir = tempDir("sawt-tts-noproc-");
  let sawt: InProcessSawt;
  let key: string;
  beforeAll(async () => {
    const models = join(dir.path, "models");
    await writePiperPack(join(models, "yara"), {
      name: "ar_text",
      sampleRate: 22050,
      phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
      phonemeType: "text",
    });
    sawt = await startInProcess({ SAWT_MODELS_DIR: models });
    await sawt.server.enginesSettled;
    key = sawt.server.ctx.keys.create({ name: "noproc", rpm: 10_000 }).key;
  }, 60_000);
  afterAll(async () => {
    await sawt.close();
    dir.remove();
  });

  const speak = async (body: Record<string, unknown>): Promise<{ bytes: Uint8Array; rate: number }> => {
    const response = await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
      method: "POST",
      headers: { "content-type": "application/json", "X-API-Key": key },
      body: JSON.stringify({ input: INPUT, ...body }),
    });
    expect(response.status).toBe(200);
    return { bytes: new Uint8Array(await response.arrayBuffer()), rate: Number(response.headers.get("x-sample-rate")) };
  };
  const seconds = (bytes: Uint8Array, body: Record<string, unknown>, rate: number): number => {
    const input = body.response_format === "pcm" ? ["-f", "s16le", "-ar", String(rate), "-ac", "1"] : [];
    return (
      ffmpegSync([...input, "-i", "pipe:0", "-f", "s16le", "-ar", String(rate), "-ac", "1", "pipe:1"], bytes)
        .byteLength /
      2 /
      rate
    );
  };

  for (const body of CASES) {
    const name = Object.values(body).join(" ");
    test(`does start no process when the answer is ${name}, buffered or streamed`, async () => {
      const before = processesStartedCount();
      const streamed = await speak({ ...body });
      const buffered = await readyService(sawt.server.ctx, "tts").synthesize(speechRequest({ input: INPUT, ...body }));
      expect(processesStartedCount()).toBe(before);
      const length = seconds(streamed.bytes, body, streamed.rate);
      expect(length).toBeGreaterThan(0.5);
      expect(seconds(buffered.audio, body, buffered.sampleRate)).toBeCloseTo(length, 1);
    });
  }

  test("does still count the ffmpeg process when the answer is aac", async () => {
    const before = processesStartedCount();
    await speak({ response_format: "aac" });
    expect(processesStartedCount()).toBe(before + 1);
  });
});
