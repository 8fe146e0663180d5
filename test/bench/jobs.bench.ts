/**
 * Transcription jobs and live work (issue #28, acceptance 3), on the real server (child process)
 * with the constructed tone CTC recogniser: REST and realtime latencies while a job keeps every
 * free slot busy, over the same on an idle server (target ≤ 1.2×); and job throughput with no live
 * load over back-to-back synchronous requests of the same files (target ≥ 0.9×). Ratios within
 * one run (decisions §6). `bun run bench -- jobs`.
 */
import { join } from "node:path";
import { floatToInt16, int16ToBytes } from "../../src/audio/wav.ts";
import { letterToneAudio } from "../support/models/ctc.ts";
import { tempDir, until } from "../support/sawt.ts";
import { connect } from "../asr/ws-client.ts";
import { concat, silence } from "../asr/support.ts";
import { api, startJobsServer, submitPaths, toneModels, waitForJob, writeCalls } from "../asr/jobs/support.ts";

const LIVE_REQUESTS = Number(process.env.BENCH_LIVE ?? 60);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const JOB_FILES = Number(process.env.BENCH_JOB_FILES ?? 120);
const BUSY_FILES = 2000;

const models = await toneModels();
const source = tempDir("sawt-bench-jobs-");
const paths = writeCalls(join(source.path, "calls"), JOB_FILES);
writeCalls(join(source.path, "night"), BUSY_FILES);
const restFile = paths[0]!;
const sawt = await startJobsServer(models.dir, {
  SAWT_JOBS_SOURCE_DIRS: source.path,
  SAWT_ASR_CONCURRENCY: "2",
  SAWT_JOBS_MAX_FILES: String(BUSY_FILES),
});
const key = (await sawt.createKey({ name: "bench", rpm: 10_000_000 })).key;
const realtimeAudio = int16ToBytes(floatToInt16(concat(silence(0.2, 24000), letterToneAudio("سلام عليكم", 24000))));

async function restLatency(): Promise<number> {
  const form = new FormData();
  form.append("file", Bun.file(restFile), "call.wav");
  const started = performance.now();
  const reply = await api(sawt, key, "/v1/asr/audio/transcriptions", { method: "POST", body: form });
  if (reply.status !== 200) throw new Error(`REST ${reply.status}: ${reply.text}`);
  return performance.now() - started;
}

/** Realtime: the client commits its audio; latency from the commit to the completed transcript. */
async function realtimeLatency(): Promise<number> {
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
  for (let at = 0; at < realtimeAudio.length; at += 9600)
    client.sendJson({
      type: "input_audio_buffer.append",
      audio: Buffer.from(realtimeAudio.subarray(at, at + 9600)).toString("base64"),
    });
  const started = performance.now();
  client.sendJson({ type: "input_audio_buffer.commit" });
  await client.next("conversation.item.input_audio_transcription.completed");
  const ms = performance.now() - started;
  client.ws.close();
  return ms;
}

/** Median and p90 of `times`. */
function summary(times: number[]): { median: number; p90: number } {
  const sorted = [...times].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, p90: sorted[Math.floor(sorted.length * 0.9)]! };
}

async function sample(run: () => Promise<number>, count: number, into: number[]): Promise<void> {
  for (let i = 0; i < count; i++) into.push(await run());
}

// Warm-up, then rounds that alternate an idle server with one whose free slots a night batch
// keeps busy, so drift of the machine over the run (a shared VM's neighbours) falls on both.
await sample(restLatency, 5, []);
await sample(realtimeLatency, 3, []);
const idle = { rest: [] as number[], realtime: [] as number[] };
const busy = { rest: [] as number[], realtime: [] as number[] };
let batchDone = 0;
const perRound = Math.ceil(LIVE_REQUESTS / ROUNDS);
for (let round = 0; round < ROUNDS; round++) {
  await sample(restLatency, perRound, idle.rest);
  await sample(realtimeLatency, perRound, idle.realtime);
  const submitted = await submitPaths(sawt, key, { paths: ["night"] });
  if (submitted.status !== 202) throw new Error(`job ${submitted.status}: ${submitted.text}`);
  const night = submitted.json.id as string;
  // Measured once the worker is transcribing (it loads its models when a batch starts).
  await until(
    async () => (await api(sawt, key, `/v1/asr/jobs/${night}`)).json.counts.completed > 0,
    "the batch to run",
    {
      timeoutMs: 60_000,
      everyMs: 50,
    },
  );
  await sample(restLatency, perRound, busy.rest);
  await sample(realtimeLatency, perRound, busy.realtime);
  const counts = (await api(sawt, key, `/v1/asr/jobs/${night}`)).json.counts;
  if (counts.running === 0 && counts.completed === BUSY_FILES)
    throw new Error("the batch ended before the live requests");
  batchDone += counts.completed;
  await api(sawt, key, `/v1/asr/jobs/${night}`, { method: "DELETE" });
  await Bun.sleep(300);
}
const idleRest = summary(idle.rest);
const idleRealtime = summary(idle.realtime);
const busyRest = summary(busy.rest);
const busyRealtime = summary(busy.realtime);

// Throughput: the same files as back-to-back synchronous requests, then as one job.
let started = performance.now();
for (const path of paths) {
  const form = new FormData();
  form.append("file", Bun.file(path), "call.wav");
  await api(sawt, key, "/v1/asr/audio/transcriptions", { method: "POST", body: form });
}
const syncRate = JOB_FILES / ((performance.now() - started) / 1000);
started = performance.now();
await waitForJob(sawt, key, (await submitPaths(sawt, key, { paths: ["calls"] })).json.id, 600_000);
const jobRate = JOB_FILES / ((performance.now() - started) / 1000);

await sawt.stop();
models.remove();
source.remove();

const row = (what: string, idle: { median: number; p90: number }, busy: { median: number; p90: number }) =>
  `| ${what} | ${idle.median.toFixed(1)} / ${idle.p90.toFixed(1)} | ${busy.median.toFixed(1)} / ${busy.p90.toFixed(1)} | ${(busy.median / idle.median).toFixed(2)} |`;

console.log(`## Transcription jobs beside live work

Tone CTC recogniser, \`asr.concurrency\` 2 (jobs take 1 slot: all but one), jobs in the worker process at background CPU priority. Live latencies (ms, median / p90 of ${perRound * ROUNDS}) on an idle server and while a ${BUSY_FILES}-file job keeps its slot busy (${batchDone} of its files finished meanwhile), in ${ROUNDS} alternating rounds; target ratio ≤ 1.2.

| live request | idle | job running | ratio |
|---|---|---|---|
${row("REST transcription (short call)", idleRest, busyRest)}
${row("realtime, commit → completed", idleRealtime, busyRealtime)}

Throughput of ${JOB_FILES} files: back-to-back synchronous requests ${syncRate.toFixed(1)} files/s, one job ${jobRate.toFixed(1)} files/s, ratio ${(jobRate / syncRate).toFixed(2)} (target ≥ 0.9).
`);
