/**
 * REST speech time to first byte (issue #14): over real HTTP, the time from sending a ten-sentence
 * Arabic prompt to the first body byte, divided by the time the same route takes for its first
 * sentence alone (goal ≤ 1.2), for pcm, mp3 and opus as raw streams and for SSE. The voice is the
 * constructed tone voice with a chain of dense MatMuls per run, so each sentence costs real CPU
 * (the cost is measured and printed), as a neural voice's would.
 */
import "../support/families.ts";
import { join } from "node:path";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { startSawt, tempDir, waitForStatus } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap } from "../tts/support.ts";
import { median } from "./tts-support.ts";

const RUNS = 7;
const COST_REPEATS = 250;
const SENTENCE = "مرحبا بكم في خدمة العملاء.";
const PROMPT = Array.from({ length: 10 }, () => SENTENCE).join(" ");

const dir = tempDir("sawt-bench-rest-stream-");
const models = join(dir.path, "models");
await writePiperPack(join(models, "yara"), {
  name: "ar_text",
  sampleRate: 22050,
  phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
  phonemeType: "text",
  costRepeats: COST_REPEATS,
});
const sawt = await startSawt({ env: { SAWT_MODELS_DIR: models, SAWT_TTS_CONCURRENCY: "1", SAWT_LOG_LEVEL: "warn" } });
await waitForStatus(`${sawt.baseUrl}/v1/tts/health`);
const { key } = await sawt.createKey({ name: "bench", rpm: 1_000_000 });

/** Time to the first body byte and to the end, ms. */
async function request(body: Record<string, unknown>): Promise<{ first: number; total: number }> {
  const started = performance.now();
  const response = await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const reader = response.body!.getReader();
  let first = Number.NaN;
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    if (Number.isNaN(first)) first = performance.now() - started;
  }
  return { first, total: performance.now() - started };
}

async function medians(body: Record<string, unknown>): Promise<{ first: number; total: number }> {
  await request(body);
  const runs: Array<{ first: number; total: number }> = [];
  for (let i = 0; i < RUNS; i++) runs.push(await request(body));
  return { first: median(runs.map((r) => r.first)), total: median(runs.map((r) => r.total)) };
}

const rows: string[] = [];
for (const [label, extra] of [
  ["pcm", { response_format: "pcm" }],
  ["mp3", { response_format: "mp3" }],
  ["opus", { response_format: "opus" }],
  ["pcm, SSE", { response_format: "pcm", stream_format: "sse" }],
  ["mp3, SSE", { response_format: "mp3", stream_format: "sse" }],
] as const) {
  // The first sentence alone, on the same route and format: the floor for the first byte.
  const one = await medians({ input: SENTENCE, ...extra });
  const ten = await medians({ input: PROMPT, ...extra });
  rows.push(
    `| ${label} | ${one.total.toFixed(0)} | ${ten.first.toFixed(0)} | ${ten.total.toFixed(0)} | ${(ten.first / one.total).toFixed(2)} | ${(ten.first / ten.total).toFixed(2)} |`,
  );
}
await sawt.stop();
dir.remove();

console.log(`## REST speech time to first byte (rest-stream.bench.ts)

Ten-sentence Arabic prompt over real HTTP, one synthesis at a time, the tone voice with
${COST_REPEATS} dense 256×256 MatMuls per model run (one run per sentence; its cost is the first
column). Medians of ${RUNS} runs after a warm-up. Goal: first byte / one sentence ≤ 1.2.

| format | one sentence, whole request (ms) | ten sentences, first byte (ms) | ten sentences, whole request (ms) | first byte / one sentence | first byte / whole |
|---|---|---|---|---|---|
${rows.join("\n")}
`);
