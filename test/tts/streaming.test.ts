/**
 * Streamed REST speech over real HTTP (issue #14): with a constructed voice that costs real CPU
 * time per sentence, the first bytes of a ten-sentence prompt arrive after about one sentence's
 * synthesis for every format, the body decodes to the same duration as the buffered (gRPC unary)
 * result, SSE carries the same bytes as OpenAI's events, and a client that leaves stops the
 * synthesis so the next queued request starts at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { join } from "node:path";
import OpenAI from "openai";
import { Stream } from "openai/core/streaming";
import type { AudioFormat } from "../../src/tts/types.ts";
import { bearer, clients, unary, waitPortsServing } from "../grpc/client.ts";
import { ffmpegSync } from "../support/audio.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { startSawt, tempDir, waitForStatus, type SawtProcess } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap } from "./support.ts";

const SENTENCE = "مرحبا بكم في خدمة العملاء.";
const PROMPT = Array.from({ length: 10 }, () => SENTENCE).join(" ");
/** Dense 256² MatMuls per model run: on the order of 100 ms per sentence on this machine. */
const COST_REPEATS = 250;
const FORMATS: readonly AudioFormat[] = ["pcm", "wav", "mp3", "opus", "aac", "flac"];

const dir = tempDir("sawt-tts-streaming-");
let sawt: SawtProcess;
let grpc: ReturnType<typeof clients>;
let key: string;
/** Wall time of a one-sentence pcm request: the cost of the first sentence alone. */
let oneSentenceMs: number;

interface Timed {
  readonly response: Response;
  readonly firstByteMs: number;
  readonly totalMs: number;
  readonly body: Uint8Array;
}

function speechRequest(body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
  return fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
}

/** Sends a request and times its first body chunk and its end. */
async function timed(body: Record<string, unknown>): Promise<Timed> {
  const started = performance.now();
  const response = await speechRequest(body);
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  let firstByteMs = Number.NaN;
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    if (chunks.length === 0) firstByteMs = performance.now() - started;
    chunks.push(next.value);
  }
  return { response, firstByteMs, totalMs: performance.now() - started, body: new Uint8Array(Buffer.concat(chunks)) };
}

/** Seconds of audio in an encoded body, by decoding it with the real ffmpeg. */
function decodedSeconds(bytes: Uint8Array, format: AudioFormat, rate: number): number {
  const input = format === "pcm" ? ["-f", "s16le", "-ar", String(rate), "-ac", "1"] : [];
  const pcm = ffmpegSync([...input, "-i", "pipe:0", "-f", "s16le", "-ar", String(rate), "-ac", "1", "pipe:1"], bytes);
  return pcm.byteLength / 2 / rate;
}

beforeAll(async () => {
  const models = join(dir.path, "models");
  await writePiperPack(join(models, "yara"), {
    name: "ar_text",
    sampleRate: 16000,
    phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
    phonemeType: "text",
    costRepeats: COST_REPEATS,
  });
  sawt = await startSawt({
    env: { SAWT_MODELS_DIR: models, SAWT_TTS_CONCURRENCY: "1", SAWT_RUNTIME_INTRA_OP_THREADS: "1" },
  });
  await waitForStatus(`${sawt.baseUrl}/v1/tts/health`);
  await waitPortsServing(sawt.ports, ["tts"]);
  grpc = clients(sawt.ports.grpc_tts);
  key = (await sawt.createKey({ name: "streaming", rpm: 10_000 })).key;
  await timed({ input: SENTENCE, response_format: "pcm" }); // warm-up
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push((await timed({ input: SENTENCE, response_format: "pcm" })).totalMs);
  oneSentenceMs = runs.sort((a, b) => a - b)[1]!;
}, 120_000);

afterAll(async () => {
  grpc.close();
  await sawt.stop("SIGKILL");
  dir.remove();
});

describe("streamed speech over REST", () => {
  for (const format of FORMATS) {
    test(`does send ${format} audio after about one sentence when the prompt has ten`, async () => {
      const streamed = await timed({ input: PROMPT, response_format: format });
      expect(streamed.response.status).toBe(200);
      expect(streamed.response.headers.get("content-length")).toBeNull();
      // Ten sentences take ~10 units; the first bytes must come after ~1, not after all of them.
      // (Ratios within one request, not times: the machine's load moves both alike.)
      expect(streamed.firstByteMs).toBeLessThan(streamed.totalMs / 3);

      const rate = Number(streamed.response.headers.get("x-sample-rate"));
      const buffered = await unary(grpc.tts, "Synthesize", { text: PROMPT, response_format: format }, bearer(key));
      expect(buffered.error).toBeUndefined();
      const bufferedSeconds = decodedSeconds(new Uint8Array(buffered.response.audio), format, rate);
      expect(Math.abs(decodedSeconds(streamed.body, format, rate) - bufferedSeconds)).toBeLessThan(0.06);
    }, 60_000);
  }

  test("does carry the raw stream's bytes in speech.audio.delta events when stream_format is sse", async () => {
    const raw = await timed({ input: PROMPT, response_format: "pcm" });
    const sse = await timed({ input: PROMPT, response_format: "pcm", stream_format: "sse" });
    expect(sse.response.headers.get("content-type")).toBe("text/event-stream");
    expect(sse.response.headers.get("x-audio-content-type")).toBe(raw.response.headers.get("content-type"));
    expect(sse.firstByteMs).toBeLessThan(sse.totalMs / 3);
    const events: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (event) => events.push(event) });
    parser.feed(new TextDecoder().decode(sse.body));
    const parsed = events.map(
      (e) => JSON.parse(e.data) as { type: string; audio?: string; usage?: Record<string, number> },
    );
    expect(parsed.at(-1)).toEqual({
      type: "speech.audio.done",
      usage: { input_tokens: [...PROMPT].length, output_tokens: 0, total_tokens: [...PROMPT].length },
    });
    const deltas = parsed.slice(0, -1);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.every((d) => d.type === "speech.audio.delta")).toBe(true);
    const audio = Buffer.concat(deltas.map((d) => Buffer.from(d.audio!, "base64")));
    expect(audio.equals(Buffer.from(raw.body))).toBe(true);
  }, 60_000);

  test("does let the official openai SDK iterate the SSE stream when stream_format is sse", async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${sawt.baseUrl}/v1`, maxRetries: 0 });
    const response = await client.audio.speech.create({
      model: "tts-1",
      voice: "alloy",
      input: SENTENCE,
      response_format: "mp3",
      stream_format: "sse",
      instructions: "cheerful",
    });
    expect(response.headers.get("x-tts-instructions")).toBe("ignored");
    expect(response.headers.get("x-tts-voice")).toBe("Yara");
    const types: string[] = [];
    const audio: Buffer[] = [];
    for await (const event of Stream.fromSSEResponse<{ type: string; audio?: string }>(
      response,
      new AbortController(),
    )) {
      types.push(event.type);
      if (event.audio) audio.push(Buffer.from(event.audio, "base64"));
    }
    expect(types.at(-1)).toBe("speech.audio.done");
    expect(types.slice(0, -1).every((t) => t === "speech.audio.delta")).toBe(true);
    expect(decodedSeconds(new Uint8Array(Buffer.concat(audio)), "mp3", 16000)).toBeGreaterThan(0.5);
  }, 60_000);

  test("does stop the synthesis and start the next queued request at once when a client disconnects", async () => {
    const controller = new AbortController();
    const first = await speechRequest({ input: PROMPT, response_format: "pcm" }, controller.signal);
    const reader = first.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    const started = performance.now();
    const next = speechRequest({ input: SENTENCE, response_format: "pcm" });
    controller.abort();
    const response = await next;
    await response.arrayBuffer();
    // With one synthesis at a time, the queued request waits for at most the sentence being
    // rendered when the client left, not for the nine sentences that were still to come.
    expect(performance.now() - started).toBeLessThan(4 * oneSentenceMs + 500);
    const line = await waitForLog((l) => l.includes('"speech streamed"') && l.includes('"outcome":"cancelled"'));
    const logged = JSON.parse(line) as { sentences: number; sentences_total: number };
    expect(logged.sentences_total).toBe(10);
    expect(logged.sentences).toBeLessThan(5);
  }, 60_000);
});

async function waitForLog(match: (line: string) => boolean, timeoutMs = 10_000): Promise<string> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const line = sawt.logs.find(match);
    if (line) return line;
    if (performance.now() > deadline) throw new Error(`no matching log line in:\n${sawt.logs.join("\n")}`);
    await Bun.sleep(20);
  }
}
