/**
 * Per-format cost of a TTS response (issue #19, acceptance 2): over real HTTP, the whole-request
 * time of a one-sentence Arabic prompt on a voice of Piper-medium cost (medium-voice.ts) in each
 * format, divided by the bare `session.run` of the same ids (raw, on as many threads as Sawt's
 * session) and by the same request in `pcm`. Two servers: Sawt as built (mp3/opus/flac encoded
 * in-process, resampling in-process) and the same build forced onto the ffmpeg fallback (codec
 * libraries pointed at a missing path), which is how every compressed response was made before.
 * Raw runs and both servers' requests alternate, so load drift hits all of them.
 */
import { cpus } from "node:os";
import { join } from "node:path";
import { defaultIntraOpThreads } from "../../src/onnx/devices.ts";
import { startSawt, tempDir, waitForStatus } from "../support/sawt.ts";
import { IVR_SENTENCE, MEDIUM_VOICE_ENV, mediumVoiceIds, writeMediumVoice } from "./medium-voice.ts";
import { median, postSpeech, rawSession } from "./tts-support.ts";

const RUNS = 12;
const FORMATS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["pcm", { response_format: "pcm" }],
  ["mp3", { response_format: "mp3" }],
  ["opus", { response_format: "opus" }],
  ["flac", { response_format: "flac" }],
  ["wav", { response_format: "wav" }],
  ["pcm 8 kHz μ-law", { response_format: "pcm", sample_rate: 8000, encoding: "pcm_mulaw" }],
  ["mp3 8 kHz", { response_format: "mp3", sample_rate: 8000 }],
  ["aac (ffmpeg in both)", { response_format: "aac" }],
];
const SERVERS = ["inProcess", "ffmpeg"] as const;
type Server = (typeof SERVERS)[number];

const dir = tempDir("sawt-bench-formats-");
const models = join(dir.path, "models");
const packs = await writeMediumVoice(models);
const ids = await mediumVoiceIds(packs, IVR_SENTENCE);
const threads = defaultIntraOpThreads(cpus().length);
const raw = await rawSession(packs.piper.modelPath, threads);
const common = { ...MEDIUM_VOICE_ENV, SAWT_MODELS_DIR: models, SAWT_TTS_CONCURRENCY: "1", SAWT_LOG_LEVEL: "warn" };
const missing = join(dir.path, "missing.so");
const servers = {
  inProcess: await startSawt({ env: common }),
  ffmpeg: await startSawt({
    env: { ...common, SAWT_MP3LAME_LIB: missing, SAWT_OPUS_LIB: missing, SAWT_FLAC_LIB: missing },
  }),
};
const keys: Record<Server, string> = { inProcess: "", ffmpeg: "" };
for (const name of SERVERS) {
  await waitForStatus(`${servers[name].baseUrl}/v1/tts/health`, 200, 60_000);
  keys[name] = (await servers[name].createKey({ name: "bench", rpm: 1_000_000 })).key;
}

async function post(server: Server, fields: Record<string, unknown>): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  const body = JSON.stringify({ input: IVR_SENTENCE, ...fields });
  const bytes = (await postSpeech(servers[server].baseUrl, keys[server], body)).byteLength;
  return { ms: performance.now() - started, bytes };
}

async function timedRaw(): Promise<number> {
  const started = performance.now();
  await raw.run(ids);
  return performance.now() - started;
}

// Same work: Sawt's pcm is exactly the raw output (one sentence: no silences added).
const rawSamples = await raw.run(ids);
for (const server of SERVERS) {
  const { bytes } = await post(server, { response_format: "pcm" });
  if (bytes / 2 !== rawSamples) throw new Error(`${server}: ${bytes / 2} pcm samples, raw ${rawSamples}`);
}
for (const [, body] of FORMATS) for (const server of SERVERS) await post(server, body); // warm-up
const rawTimes: number[] = [];
const times = new Map<string, Record<Server, number[]>>(
  FORMATS.map(([label]) => [label, { inProcess: [], ffmpeg: [] }]),
);
for (let run = 0; run < RUNS; run++) {
  rawTimes.push(await timedRaw());
  for (const [label, body] of FORMATS) {
    for (const server of SERVERS) times.get(label)![server].push((await post(server, body)).ms);
  }
}
await Promise.all([servers.inProcess.stop(), servers.ffmpeg.stop(), raw.release()]);
dir.remove();

const rawMs = median(rawTimes);
const pcm = times.get("pcm")!;
const base = { inProcess: median(pcm.inProcess), ffmpeg: median(pcm.ffmpeg) };
const cells = (label: string, server: Server): string => {
  const ms = median(times.get(label)![server]);
  return `${ms.toFixed(0)} | ${(ms / rawMs).toFixed(2)} | ${(ms / base[server]).toFixed(2)}`;
};
const rows = FORMATS.map(([label]) => `| ${label} | ${cells(label, "inProcess")} | ${cells(label, "ffmpeg")} |`);
const audioSeconds = rawSamples / 22050;
const mb = (packs.modelBytes / 1e6).toFixed(1);
console.log(`## TTS output formats: per-format cost over raw inference (formats.bench.ts)

One Arabic sentence (\`${IVR_SENTENCE}\`, ${ids.length} ids, ${audioSeconds.toFixed(2)} s of audio) over real HTTP
(\`POST /v1/tts/audio/speech\`) on the constructed Piper-medium-shaped voice (${(packs.parameters / 1e6).toFixed(1)} M
parameters, ${mb} MB, 22.05 kHz; see throughput.bench.ts). Raw = bare \`session.run\` of the ids Sawt feeds on
${threads} intra-op threads, as Sawt's session: **${rawMs.toFixed(0)} ms per sentence**. Tashkeel off (the ids are
espeak's reading of the letters as written). Medians of ${RUNS} alternating runs (raw, then each format on each
server) on two servers started together: *in-process* is Sawt as built (libmp3lame, libopus, libFLAC through
bun:ffi; resampling with the one streaming resampler), *ffmpeg* the same build with those libraries pointed at a
missing path, so each mp3/opus/flac response starts an ffmpeg process as before (pcm and wav, resampled or not,
are in-process in both; aac uses ffmpeg in both). Goal (issue #19): mp3 and opus / raw ≤ 1.15.

| format | in-process (ms) | / raw | / pcm | ffmpeg per response (ms) | / raw | / pcm |
|---|---:|---:|---:|---:|---:|---:|
${rows.join("\n")}
`);
process.exit(0);
