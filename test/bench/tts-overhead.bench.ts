/**
 * TTS serving overhead (decisions §6): end-to-end time over raw `session.run` time on the same model
 * and the same id tensors. (a) bare onnxruntime, one run per sentence as the service does;
 * (b) the TTS service in-process (front-end, ids, session worker, silence, level, pcm encoding);
 * (c) the full HTTP path: POST /v1/tts/audio/speech against a real server process. The voice is
 * the constructed text-phoneme tone voice, so the model itself is nearly free and the ratios show
 * the serving layer's own cost; the audio lengths are checked equal before anything is reported.
 */
import "../support/families.ts";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startSawt, tempDir, waitForStatus } from "../support/sawt.ts";
import { startEngine, speechRequest } from "../tts/support.ts";
import {
  median,
  MULTI_INPUT,
  postSpeech,
  rawSession,
  sentenceIds,
  SHORT_INPUT,
  timeRuns,
  writeTextVoice,
} from "./tts-support.ts";

const RUNS = 40;
const WARMUP = 5;
const SILENCE_SAMPLES = 0.2 * 16000;

const dir = tempDir("sawt-bench-overhead-");
const models = join(dir.path, "models");
mkdirSync(models);
const modelPath = await writeTextVoice(models);
const raw = await rawSession(modelPath);
const engine = await startEngine(models);
const sawt = await startSawt({
  env: { SAWT_MODELS_DIR: models, SAWT_RUNTIME_INTRA_OP_THREADS: "1", SAWT_LOG_LEVEL: "warn" },
});
await waitForStatus(`${sawt.baseUrl}/v1/tts/health`);
const { key } = await sawt.createKey({ name: "bench", rpm: 1_000_000 });

interface Row {
  name: string;
  sentences: number;
  ids: number;
  raw: number;
  service: number;
  http: number;
}

const rows: Row[] = [];
for (const [name, input] of [
  ["short (1 sentence)", SHORT_INPUT],
  ["multi-sentence", MULTI_INPUT],
] as const) {
  const perSentence = sentenceIds(input);
  // Same work check: the service's PCM is the raw outputs plus its sentence silences, nothing else.
  let rawSamples = 0;
  for (const ids of perSentence) rawSamples += await raw.run(ids);
  const request = speechRequest({ input, response_format: "pcm" });
  const serviceSamples = (await engine.service.synthesize(request)).audio.byteLength / 2;
  const body = JSON.stringify({ input, response_format: "pcm" });
  const post = async (): Promise<number> => (await postSpeech(sawt.baseUrl, key, body)).byteLength / 2;
  const httpSamples = await post();
  const expected = rawSamples + SILENCE_SAMPLES * (perSentence.length - 1);
  if (serviceSamples !== expected || httpSamples !== expected) {
    throw new Error(`different work: raw ${expected} samples, service ${serviceSamples}, HTTP ${httpSamples}`);
  }

  const rawMs = median(
    await timeRuns(RUNS, WARMUP, async () => {
      for (const ids of perSentence) await raw.run(ids);
    }),
  );
  const serviceMs = median(
    await timeRuns(RUNS, WARMUP, () => engine.service.synthesize(speechRequest({ input, response_format: "pcm" }))),
  );
  const httpMs = median(await timeRuns(RUNS, WARMUP, post));
  rows.push({
    name,
    sentences: perSentence.length,
    ids: perSentence.reduce((n, ids) => n + ids.length, 0),
    raw: rawMs,
    service: serviceMs,
    http: httpMs,
  });
}

await sawt.stop();
await engine.release();
await raw.release();
dir.remove();

const table = rows.map(
  (r) =>
    `| ${r.name} | ${r.sentences} | ${r.ids} | ${r.raw.toFixed(3)} | ${r.service.toFixed(3)} | ${r.http.toFixed(3)} | ${(r.service / r.raw).toFixed(1)} | ${(r.http / r.raw).toFixed(1)} |`,
);
console.log(`## TTS serving overhead (tts-overhead.bench.ts)

Median of ${RUNS} runs (after ${WARMUP} warm-up) on the constructed 16 kHz text-phoneme tone voice, 1
ONNX thread everywhere. *(a) raw*: \`session.run\` of onnxruntime-node on the exact id tensors the
service feeds, one run per sentence. *(b) service*: \`TtsService.synthesize\` in-process, \`pcm\`.
*(c) HTTP*: \`POST /v1/tts/audio/speech\` (\`pcm\`) to a real \`sawt serve\` process, client in this
process. The tone model costs almost nothing, so the ratios are an upper bound on the serving
layer's share: with a real VITS voice (tens to hundreds of ms per sentence) (b) − (a) and
(c) − (a) stay the same in milliseconds while (a) grows.

| input | sentences | ids | (a) raw (ms) | (b) service (ms) | (c) HTTP (ms) | b / a | c / a |
|---|---:|---:|---:|---:|---:|---:|---:|
${table.join("\n")}
`);
