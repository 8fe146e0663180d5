/**
 * Per-format cost of a TTS response (issue #19, acceptance 2): over real HTTP, the whole-request
 * time of a one-sentence Arabic prompt in each format divided by the same request in raw `pcm`,
 * for Sawt as built (mp3/opus/flac encoded in-process, resampling in-process) and for the same
 * build forced onto the ffmpeg fallback (codec libraries pointed at a missing path), which is how
 * every compressed response was made before. The voice is the constructed tone voice with a chain
 * of dense MatMuls per run, so the sentence costs real CPU (printed), as a neural voice's would.
 * Both servers run at once and the requests alternate between them, so load drift hits both.
 */
import { join } from "node:path";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { startSawt, tempDir, waitForStatus } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap } from "../tts/support.ts";
import { median } from "./tts-support.ts";

const RUNS = 15;
const COST_REPEATS = 250;
const SENTENCE = "مرحبا بكم في خدمة العملاء.";
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

const dir = tempDir("sawt-bench-formats-");
const models = join(dir.path, "models");
await writePiperPack(join(models, "yara"), {
  name: "ar_text",
  sampleRate: 22050,
  phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
  phonemeType: "text",
  costRepeats: COST_REPEATS,
});
const common = { SAWT_MODELS_DIR: models, SAWT_TTS_CONCURRENCY: "1", SAWT_LOG_LEVEL: "warn" };
const missing = join(dir.path, "missing.so");
const servers = {
  inProcess: await startSawt({ env: common }),
  ffmpeg: await startSawt({
    env: { ...common, SAWT_MP3LAME_LIB: missing, SAWT_OPUS_LIB: missing, SAWT_FLAC_LIB: missing },
  }),
};
const keys: Record<keyof typeof servers, string> = { inProcess: "", ffmpeg: "" };
for (const name of ["inProcess", "ffmpeg"] as const) {
  await waitForStatus(`${servers[name].baseUrl}/v1/tts/health`);
  keys[name] = (await servers[name].createKey({ name: "bench", rpm: 1_000_000 })).key;
}

async function timed(server: keyof typeof servers, body: Record<string, unknown>): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${servers[server].baseUrl}/v1/tts/audio/speech`, {
    method: "POST",
    headers: { "x-api-key": keys[server], "content-type": "application/json" },
    body: JSON.stringify({ input: SENTENCE, ...body }),
  });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
  await response.arrayBuffer();
  return performance.now() - started;
}

const times = new Map<string, { inProcess: number[]; ffmpeg: number[] }>();
for (const [label] of FORMATS) times.set(label, { inProcess: [], ffmpeg: [] });
for (const [, body] of FORMATS) for (const server of ["inProcess", "ffmpeg"] as const) await timed(server, body); // warm-up
for (let run = 0; run < RUNS; run++) {
  for (const [label, body] of FORMATS) {
    for (const server of ["inProcess", "ffmpeg"] as const) times.get(label)![server].push(await timed(server, body));
  }
}
await Promise.all([servers.inProcess.stop(), servers.ffmpeg.stop()]);
dir.remove();

const pcm = times.get("pcm")!;
const base = { inProcess: median(pcm.inProcess), ffmpeg: median(pcm.ffmpeg) };
const rows = FORMATS.map(([label]) => {
  const t = times.get(label)!;
  const a = median(t.inProcess);
  const b = median(t.ffmpeg);
  return `| ${label} | ${a.toFixed(1)} | ${(a / base.inProcess).toFixed(2)} | ${b.toFixed(1)} | ${(b / base.ffmpeg).toFixed(2)} |`;
});
console.log(`## TTS output formats: in-process encoders vs ffmpeg per response (formats.bench.ts)

One Arabic sentence over real HTTP (\`POST /v1/tts/audio/speech\`, 22.05 kHz tone voice with
${COST_REPEATS} dense 256×256 MatMuls per run; the \`pcm\` row is that sentence's whole cost).
Medians of ${RUNS} alternating runs per format on two servers started together: *in-process* is Sawt
as built (libmp3lame, libopus, libFLAC through bun:ffi; resampling with the one streaming
resampler), *ffmpeg* the same build with those libraries pointed at a missing path, so each
mp3/opus/flac response starts an ffmpeg process as before (pcm and wav, resampled or not, are
in-process in both columns; aac uses ffmpeg in both). Goal (issue #19): mp3 and opus / pcm ≤ 1.15.

| format | in-process (ms) | / pcm | ffmpeg per response (ms) | / pcm |
|---|---:|---:|---:|---:|
${rows.join("\n")}
`);
