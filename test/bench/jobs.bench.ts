/**
 * Transcription jobs and live work (issue #28, acceptance 3), on the real server (child process):
 * live latencies while a job keeps every free slot busy, over the same on an idle server (target
 * ≤ 1.2×), in rounds that alternate idle and busy so the machine's drift over the run falls on
 * both; and job throughput with no live load over back-to-back synchronous requests of the same
 * files (target ≥ 0.9×). Two recognisers: the constructed tone CTC pack (tiny inference, so the
 * serving layer's own work dominates: REST and realtime), and the built-in Moonshine tiny on real
 * English speech (inference dominates: REST). Ratios within one run (decisions §6).
 * `bun run bench -- jobs`.
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { floatToInt16, int16ToBytes } from "../../src/audio/wav.ts";
import { ffmpegSync } from "../support/audio.ts";
import { englishSpeech } from "../support/fixtures/speech.ts";
import { moonshineTinyPackDir } from "../support/fixtures/models.ts";
import { letterToneAudio } from "../support/models/ctc.ts";
import { type SawtProcess, tempDir, until } from "../support/sawt.ts";
import { connect } from "../asr/ws-client.ts";
import { concat, silence } from "../asr/support.ts";
import { api, startJobsServer, submitPaths, toneModels, waitForJob, writeCalls } from "../asr/jobs/support.ts";

const LIVE_REQUESTS = Number(process.env.BENCH_LIVE ?? 60);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const JOB_FILES = Number(process.env.BENCH_JOB_FILES ?? 300);
const BUSY_FILES = 2000;
/** The real-model scenario: fewer, longer requests (each a few hundred milliseconds). */
const SPEECH_REQUESTS = Number(process.env.BENCH_SPEECH_LIVE ?? 24);
const SPEECH_ROUNDS = 4;
const SPEECH_SECONDS = 5;

type Latency = { median: number; p90: number };

/** Median and p90 of `times`. */
function summary(times: number[]): Latency {
  const sorted = [...times].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, p90: sorted[Math.floor(sorted.length * 0.9)]! };
}

async function sample(run: () => Promise<number>, count: number, into: number[]): Promise<void> {
  for (let i = 0; i < count; i++) into.push(await run());
}

/** Latency of one synchronous transcription of `file`. */
async function restLatency(sawt: SawtProcess, key: string, file: string): Promise<number> {
  const form = new FormData();
  form.append("file", Bun.file(file), "call.wav");
  const started = performance.now();
  const reply = await api(sawt, key, "/v1/asr/audio/transcriptions", { method: "POST", body: form });
  if (reply.status !== 200) throw new Error(`REST ${reply.status}: ${reply.text}`);
  return performance.now() - started;
}

/** Realtime: the client commits its audio; latency from the commit to the completed transcript. */
async function realtimeLatency(sawt: SawtProcess, key: string, audio: Uint8Array): Promise<number> {
  const client = await connect(`${sawt.baseUrl.replace("http", "ws")}/v1/realtime?intent=transcription`, {
    headers: { authorization: `Bearer ${key}` },
  });
  await client.next("session.created");
  client.sendJson({
    type: "session.update",
    session: {
      type: "transcription",
      audio: { input: { format: { type: "audio/pcm", rate: 24000 }, turn_detection: null } },
    },
  });
  await client.next("session.updated");
  for (let at = 0; at < audio.length; at += 9600)
    client.sendJson({
      type: "input_audio_buffer.append",
      audio: Buffer.from(audio.subarray(at, at + 9600)).toString("base64"),
    });
  const started = performance.now();
  client.sendJson({ type: "input_audio_buffer.commit" });
  await client.next("conversation.item.input_audio_transcription.completed");
  const ms = performance.now() - started;
  client.ws.close();
  return ms;
}

/** Live requests measured on an idle server and beside a night batch, in alternating rounds. */
async function liveBesideBatch(
  sawt: SawtProcess,
  key: string,
  kinds: Record<string, () => Promise<number>>,
  options: { requests: number; rounds: number; night: string; nightFiles: number },
): Promise<{ idle: Record<string, Latency>; busy: Record<string, Latency>; batchDone: number; samples: number }> {
  const names = Object.keys(kinds);
  const idle = Object.fromEntries(names.map((n) => [n, [] as number[]]));
  const busy = Object.fromEntries(names.map((n) => [n, [] as number[]]));
  for (const name of names) await sample(kinds[name]!, 3, []); // warm-up
  const perRound = Math.ceil(options.requests / options.rounds);
  let batchDone = 0;
  for (let round = 0; round < options.rounds; round++) {
    for (const name of names) await sample(kinds[name]!, perRound, idle[name]!);
    const submitted = await submitPaths(sawt, key, { paths: [options.night] });
    if (submitted.status !== 202) throw new Error(`job ${submitted.status}: ${submitted.text}`);
    const night = submitted.json.id as string;
    // Measured once the worker is transcribing (it loads its models when a batch starts).
    await until(
      async () => (await api(sawt, key, `/v1/asr/jobs/${night}`)).json.counts.completed > 0,
      "the batch to run",
      { timeoutMs: 60_000, everyMs: 50 },
    );
    for (const name of names) await sample(kinds[name]!, perRound, busy[name]!);
    const counts = (await api(sawt, key, `/v1/asr/jobs/${night}`)).json.counts;
    if (counts.completed === options.nightFiles) throw new Error("the batch ended before the live requests");
    batchDone += counts.completed;
    await api(sawt, key, `/v1/asr/jobs/${night}`, { method: "DELETE" });
    await Bun.sleep(300);
  }
  const by = (times: Record<string, number[]>) => Object.fromEntries(names.map((n) => [n, summary(times[n]!)]));
  return { idle: by(idle), busy: by(busy), batchDone, samples: perRound * options.rounds };
}

const row = (what: string, idle: Latency, busy: Latency) =>
  `| ${what} | ${idle.median.toFixed(1)} / ${idle.p90.toFixed(1)} | ${busy.median.toFixed(1)} / ${busy.p90.toFixed(1)} | ${(busy.median / idle.median).toFixed(2)} |`;

// 1. The tone CTC pack: the serving layer's own work.
const models = await toneModels();
const source = tempDir("sawt-bench-jobs-");
const paths = writeCalls(join(source.path, "calls"), JOB_FILES);
writeCalls(join(source.path, "night"), BUSY_FILES);
let sawt = await startJobsServer(models.dir, {
  SAWT_JOBS_SOURCE_DIRS: source.path,
  SAWT_ASR_CONCURRENCY: "2",
  SAWT_JOBS_MAX_FILES: String(BUSY_FILES),
});
let key = (await sawt.createKey({ name: "bench", rpm: 10_000_000 })).key;
const realtimeAudio = int16ToBytes(floatToInt16(concat(silence(0.2, 24000), letterToneAudio("سلام عليكم", 24000))));
const tone = await liveBesideBatch(
  sawt,
  key,
  {
    rest: () => restLatency(sawt, key, paths[0]!),
    realtime: () => realtimeLatency(sawt, key, realtimeAudio),
  },
  { requests: LIVE_REQUESTS, rounds: ROUNDS, night: "night", nightFiles: BUSY_FILES },
);

// Throughput: the same files as back-to-back synchronous requests, then as one job.
let started = performance.now();
for (const path of paths) await restLatency(sawt, key, path);
const syncRate = JOB_FILES / ((performance.now() - started) / 1000);
// With no live load: the worker is paused while live work runs and until it has been quiet a moment.
await Bun.sleep(500);
started = performance.now();
await waitForJob(sawt, key, (await submitPaths(sawt, key, { paths: ["calls"] })).json.id, 600_000);
const jobRate = JOB_FILES / ((performance.now() - started) / 1000);
await sawt.stop();
models.remove();

// 2. The built-in Moonshine tiny on real English speech: inference dominates.
const speech = englishSpeech();
const cut = join(source.path, "speech", "call.wav");
mkdirSync(dirname(cut), { recursive: true });
ffmpegSync(["-i", speech.wav, "-t", String(SPEECH_SECONDS), "-c:a", "pcm_s16le", "-ar", "16000", "-ac", "1", cut]);
const speechNight = join(source.path, "speech-night");
mkdirSync(speechNight, { recursive: true });
for (let i = 0; i < 400; i++) copyFileSync(cut, join(speechNight, `call-${String(i).padStart(3, "0")}.wav`));
const noPacks = tempDir("sawt-bench-jobs-none-");
sawt = await startJobsServer(noPacks.path, {
  SAWT_ASR_BUILTIN: "true",
  SAWT_BUILTIN_ASR_DIR: dirname(moonshineTinyPackDir()),
  SAWT_JOBS_SOURCE_DIRS: source.path,
  SAWT_ASR_CONCURRENCY: "2",
});
key = (await sawt.createKey({ name: "bench", rpm: 10_000_000 })).key;
const moonshine = await liveBesideBatch(
  sawt,
  key,
  { rest: () => restLatency(sawt, key, cut) },
  { requests: SPEECH_REQUESTS, rounds: SPEECH_ROUNDS, night: "speech-night", nightFiles: 400 },
);
await sawt.stop();
noPacks.remove();
source.remove();

console.log(`## Transcription jobs beside live work

\`asr.concurrency\` 2 (jobs take 1 slot: all but one); job files run in the jobs worker process at
background CPU priority (docs/jobs.md). Live latencies (ms, median / p90) on an idle server and
while a night batch keeps its slot busy, in rounds that alternate the two; target ratio ≤ 1.2.
The worker is paused while live work runs, so few batch files finish during the live requests
(they run in the gaps); ratios under 1 are this VM's noise (idle virtual cores are slower to
wake than busy ones).

Tone CTC recogniser (tiny inference: the serving layer's own work), ${tone.samples} requests of each kind
in ${ROUNDS} rounds (${tone.batchDone} batch files finished meanwhile):

| live request | idle | job running | ratio |
|---|---|---|---|
${row("REST transcription (short call)", tone.idle.rest!, tone.busy.rest!)}
${row("realtime, commit → completed", tone.idle.realtime!, tone.busy.realtime!)}

Built-in Moonshine tiny, ${SPEECH_SECONDS} s of real English speech, ${moonshine.samples} requests in ${SPEECH_ROUNDS} rounds
(${moonshine.batchDone} batch files of the same length finished meanwhile):

| live request | idle | job running | ratio |
|---|---|---|---|
${row(`REST transcription (${SPEECH_SECONDS} s)`, moonshine.idle.rest!, moonshine.busy.rest!)}

Throughput of ${JOB_FILES} tone files: back-to-back synchronous requests ${syncRate.toFixed(1)} files/s, one job ${jobRate.toFixed(1)} files/s, ratio ${(jobRate / syncRate).toFixed(2)} (target ≥ 0.9).
`);
