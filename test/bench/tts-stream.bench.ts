/**
 * Streaming time-to-first-audio (decisions §6): over the TTS WebSocket of a real server, the time
 * from sending a multi-sentence request to its first binary (PCM) frame, against the time the
 * same path takes for the first sentence alone and for the whole text. In-process
 * `synthesizeStream` is timed the same way, so the socket's share shows. Streaming works when
 * the first-audio time tracks the first sentence, not the whole text.
 */
import "../support/families.ts";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { prepareText } from "../../src/tts/frontend/index.ts";
import { startSawt, tempDir, waitForStatus } from "../support/sawt.ts";
import { startEngine, speechRequest } from "../tts/support.ts";
import { median, MULTI_INPUT, speakTimed, timeRuns, writeTextVoice } from "./tts-support.ts";

const RUNS = 30;
const WARMUP = 5;
// Eight sentences, so the whole text is clearly longer than its first sentence.
const INPUT = `${MULTI_INPUT} ${MULTI_INPUT}`;
const FIRST = prepareText(INPUT, "ar")[0]!.text;

const dir = tempDir("sawt-bench-stream-");
const models = join(dir.path, "models");
mkdirSync(models);
await writeTextVoice(models);
const engine = await startEngine(models);
const sawt = await startSawt({
  env: { SAWT_MODELS_DIR: models, SAWT_RUNTIME_INTRA_OP_THREADS: "1", SAWT_LOG_LEVEL: "warn" },
});
await waitForStatus(`${sawt.baseUrl}/v1/tts/health`);
const { key } = await sawt.createKey({ name: "bench", rpm: 1_000_000 });
const url = `${sawt.baseUrl.replace("http", "ws")}/v1/tts/ws`;
const sentences = prepareText(INPUT, "ar").length;

async function socketRuns(input: string): Promise<{ first: number; total: number }> {
  const samples: Array<{ firstAudioMs: number; totalMs: number }> = [];
  await timeRuns(RUNS, WARMUP, async () => samples.push(await speakTimed(url, key, { input })));
  const timed = samples.slice(WARMUP);
  return { first: median(timed.map((s) => s.firstAudioMs)), total: median(timed.map((s) => s.totalMs)) };
}

async function streamRuns(input: string): Promise<{ first: number; total: number }> {
  const firsts: number[] = [];
  const totals = await timeRuns(RUNS, WARMUP, async () => {
    const started = performance.now();
    let first = -1;
    for await (const _chunk of engine.service.synthesizeStream(speechRequest({ input, response_format: "pcm" }))
      .chunks) {
      if (first < 0) first = performance.now() - started;
    }
    firsts.push(first);
  });
  return { first: median(firsts.slice(WARMUP)), total: median(totals) };
}

const wsWhole = await socketRuns(INPUT);
const wsFirst = await socketRuns(FIRST);
const inWhole = await streamRuns(INPUT);
const inFirst = await streamRuns(FIRST);

await sawt.stop();
await engine.release();
dir.remove();

const row = (name: string, whole: { first: number; total: number }, first: { first: number; total: number }): string =>
  `| ${name} | ${whole.first.toFixed(2)} | ${first.total.toFixed(2)} | ${whole.total.toFixed(2)} | ${(whole.first / first.total).toFixed(2)} | ${(whole.first / whole.total).toFixed(2)} |`;
console.log(`## TTS streaming time-to-first-audio (tts-stream.bench.ts)

Median of ${RUNS} runs (after ${WARMUP} warm-up), ${sentences} Arabic sentences (numbers included) on the
constructed 16 kHz text-phoneme tone voice, \`pcm\`, 1 ONNX thread. *First audio*: from sending
the request to the first PCM chunk (WebSocket: first binary frame, after the \`start\` message).
*First sentence alone*: the whole request for just that sentence, same path. *Whole text*: to the
\`end\` message / last chunk. A ratio near 1 in the first column means the first audio costs
only the first sentence (the rest is the front-end over the whole text and the first chunk's
hand-over); the second is the fraction of the whole-text wait a client still waits for its first
sound (lower is better).

| path | first audio (ms) | first sentence alone (ms) | whole text (ms) | first audio / first sentence | first audio / whole |
|---|---:|---:|---:|---:|---:|
${row("WebSocket \`/v1/tts/ws\` (real server)", wsWhole, wsFirst)}
${row("\`synthesizeStream\` in-process", inWhole, inFirst)}
`);
