/**
 * The AudioSocket door under load (issue 41, acceptance 4): how many concurrent calls this machine
 * keeps in real time with the tone CTC recogniser. Each call is streamed as Asterisk streams it
 * (the UUID, then 20 ms slin frames at 8 kHz on the wall clock, three utterances with pauses, then
 * the close), starts spread over the first second, and is transcribed live. A frame the server
 * handled (transcribed) more than 200 ms after it arrived is late; a load is kept in real time
 * when no frame of any call was late. The server measures each frame from its arrival to the end
 * of its transcription and logs, per call, its late frames and its worst wait (`frames_late`,
 * `frame_delay_max_ms` on the `call` line), which this benchmark reads. Each call's stored
 * transcript is checked against the text spoken. The ASR memory budget is raised for the run: at
 * the default `asr.pcm_budget_mb` (256) each live transcription reserves `asr.request_pcm_s` of
 * audio, so about 100 calls fit, and the 101st is refused (503) before the CPU runs out.
 */
import { connect as tcpConnect, type Socket } from "node:net";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../src/store/database.ts";
import { KeyStore } from "../../src/store/keys.ts";
import { callerAudio, pcm16, PHONE_TEXTS } from "../calls/support.ts";
import { writeToneCtcPack } from "../support/models/ctc.ts";
import { startSawt, tempDir, until, waitForStatus } from "../support/sawt.ts";

/** The loads tried, in order (`SAWT_BENCH_CALLS=100,150` tries those). */
const LEVELS = (process.env.SAWT_BENCH_CALLS ?? "10,25,50,100,150,200,250,300").split(",").map(Number);
const LATE_MS = 200;
const TEXTS = PHONE_TEXTS.slice(0, 3);
const AUDIO = pcm16(callerAudio(TEXTS, 8000));
const EXPECTED = TEXTS.join(" ");

const dir = tempDir("sawt-bench-calls-");
const models = join(dir.path, "models");
await writeToneCtcPack(join(models, "tone-ctc"));
const dataDir = join(dir.path, "data");
const db = openDatabase(dataDir);
const created = new KeyStore(db).create({ name: "bench", rpm: 1_000_000 });
closeDatabase(db);
const sawt = await startSawt({
  dataDir,
  env: {
    SAWT_MODELS_DIR: models,
    SAWT_LOG_LEVEL: "info",
    SAWT_CALLS_ENABLED: "true",
    SAWT_CALLS_AUDIOSOCKET_PORT: "0",
    SAWT_CALLS_PEERS: `127.0.0.1/32=${created.id}`,
    SAWT_CALLS_MAX_CALLS: "1000",
    SAWT_STREAMING_MAX_STREAMS: "1000",
    SAWT_ASR_MAX_QUEUE: "10000",
    // Each live transcription reserves asr.request_pcm_s of audio: the default budget holds about 100.
    SAWT_ASR_PCM_BUDGET_MB: "4096",
    SAWT_RUNTIME_METRICS_OPEN: "true",
  },
});
await waitForStatus(`${sawt.baseUrl}/ready`, 200, 30_000);
const port = sawt.ports.audiosocket!;

/** One call: UUID, frames on the wall clock from `startAt`, then the close. */
async function call(id: string, startAt: number): Promise<void> {
  const socket: Socket = tcpConnect({ host: "127.0.0.1", port, noDelay: true });
  socket.on("error", () => undefined);
  socket.on("data", () => undefined);
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  const frame = (kind: number, payload: Uint8Array) =>
    socket.write(Buffer.concat([Uint8Array.of(kind, payload.length >> 8, payload.length & 0xff), payload]));
  await Bun.sleep(Math.max(0, startAt - performance.now()));
  frame(0x01, Buffer.from(id.replace(/-/g, ""), "hex"));
  for (let at = 0, n = 0; at < AUDIO.length; at += 320, n++) {
    frame(0x10, AUDIO.subarray(at, at + 320));
    const wait = startAt + (n + 1) * 20 - performance.now();
    if (wait > 0) await Bun.sleep(wait);
  }
  socket.end();
  await closed;
}

interface CallLine {
  readonly call_id: string;
  readonly reason: string;
  readonly frames_late: number;
  readonly frame_delay_max_ms: number;
}

/** The server's `call` log lines of `ids`, once every one is there. */
async function callLines(ids: readonly string[]): Promise<CallLine[]> {
  const wanted = new Set(ids);
  return until(
    () => {
      const lines = sawt.logs
        .filter((line) => line.includes('"msg":"call"'))
        .map((line) => JSON.parse(line) as CallLine)
        .filter((line) => wanted.has(line.call_id));
      return lines.length === ids.length ? lines : undefined;
    },
    "every call's log line",
    { timeoutMs: 60_000, everyMs: 100 },
  );
}

/** How many calls' stored transcripts say exactly what was spoken. */
async function exact(ids: readonly string[]): Promise<number> {
  const texts = await Promise.all(
    ids.map(async (id) =>
      (
        await fetch(`${sawt.baseUrl}/v1/calls/${id}/transcript?format=text`, { headers: { "x-api-key": created.key } })
      ).text(),
    ),
  );
  return texts.filter((text) => text.trim() === EXPECTED).length;
}

/** The server process's CPU seconds so far (its /metrics). */
async function serverCpu(): Promise<number> {
  const metrics = await (await fetch(`${sawt.baseUrl}/metrics`)).text();
  return Number(/^process_cpu_seconds_total (\S+)$/m.exec(metrics)?.[1] ?? Number.NaN);
}

interface Level {
  readonly calls: number;
  /** The server's CPU per call, in per cent of one core while the calls ran. */
  readonly cpuPerCall: number;
  /** The machine's 1-minute load average when the level ended (other work shows here). */
  readonly load: number;
  /** Calls that ended otherwise than by the peer's hangup (refused by a bound, failed). */
  readonly failed: number;
  readonly late: number;
  readonly worstMs: number;
  readonly exact: number;
}

async function level(count: number): Promise<Level> {
  const ids = Array.from({ length: count }, () => crypto.randomUUID());
  const start = performance.now() + 200;
  const cpuBefore = await serverCpu();
  await Promise.all(ids.map((id, i) => call(id, start + (i * 1000) / count)));
  const lines = await callLines(ids);
  const seconds = (performance.now() - start) / 1000;
  const cpuPerCall = (((await serverCpu()) - cpuBefore) / seconds / count) * 100;
  return {
    cpuPerCall,
    load: loadavg()[0]!,
    failed: lines.filter((line) => line.reason !== "hangup").length,
    calls: count,
    late: lines.reduce((sum, line) => sum + line.frames_late, 0),
    worstMs: Math.max(...lines.map((line) => line.frame_delay_max_ms)),
    exact: await exact(ids),
  };
}

const levels: Level[] = [];
for (const count of LEVELS) {
  const result = await level(count);
  levels.push(result);
  process.stderr.write(
    `calls bench: ${count} calls, ${result.late} late frames, worst ${result.worstMs} ms, ${result.exact} exact, ${result.failed} failed, ${result.cpuPerCall.toFixed(2)} % CPU per call, load ${result.load.toFixed(2)}\n`,
  );
  if (result.late > 0 || result.failed > 0) break;
}
await sawt.stop();
dir.remove();

const kept = levels.filter((l) => l.late === 0 && l.failed === 0).at(-1);
const cores = cpus().length;
const frames = AUDIO.length / 320;
console.log(`## Concurrent AudioSocket calls in real time (calls.bench.ts)

\`sawt serve\` with the call doors and the tone CTC recogniser; each call streamed as Asterisk streams
AudioSocket (UUID, ${frames} frames of 20 ms slin at 8 kHz on the wall clock — three utterances with
pauses — then the close), the calls' starts spread over one second, client and server on this
machine. A frame the server transcribed more than ${LATE_MS} ms after it arrived is late; a load is kept
in real time when no frame of any call was late.

| measure | value | goal |
|---|---|---|
| concurrent AudioSocket calls kept in real time | ${kept?.calls ?? 0} | ≥ 50 |
| worst frame lateness at that load (ms, arrival → transcribed) | ${kept?.worstMs ?? "–"} | ≤ ${LATE_MS} |

| calls | late frames | worst frame (ms) | transcripts exact | calls failed | server CPU per call (% of a core) | load average |
|---:|---:|---:|---:|---:|---:|---:|
${levels.map((l) => `| ${l.calls} | ${l.late} | ${l.worstMs} | ${l.exact}/${l.calls} | ${l.failed} | ${l.cpuPerCall.toFixed(2)} | ${l.load.toFixed(2)} |`).join("\n")}

At ${kept?.calls ?? 0} calls the server used ${kept ? ((kept.calls * kept.cpuPerCall) / 100).toFixed(2) : "–"} of this machine's ${cores} cores; the load average
column shows what else ran beside it (on a shared machine, the next level's late frames may be the
neighbours' as much as Sawt's).
`);
