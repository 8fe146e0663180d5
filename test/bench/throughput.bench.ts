/**
 * TTS throughput under concurrent clients (issue #19): on a constructed voice of Piper-medium
 * cost (piper-medium.ts), in one run and interleaved point by point, bare onnxruntime-node on
 * the exact ids Sawt feeds, sherpa-onnx-node 1.13.8 on the same weights (its own espeak-ng
 * phonemes), and real `sawt serve` processes (REST pcm) at `SAWT_TTS_CONCURRENCY` 1, 2 and 4.
 * raw and sherpa run in child processes (throughput-engines.ts), each once as one 2-thread
 * session and once as two 1-thread sessions; raw also as two 1-thread sessions of the graph
 * Sawt's lanes run (decoder lifted to 2-D, src/onnx/conv-lift.ts). Closed-loop clients 1–16; per point: req/s, p50,
 * p95, cores used (the serving process's CPU time over wall time, from /proc) and, for Sawt, its CPU
 * per request split by thread (event loop, model and espeak workers, runtime).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { liftConv1d } from "../../src/onnx/conv-lift.ts";
import { concatBytes } from "../../src/audio/concat.ts";
import { PIPER_MEDIUM } from "../support/models/piper-medium.ts";
import { type SawtProcess, startSawt, tempDir, waitForStatus } from "../support/sawt.ts";
import {
  closedLoop,
  percentile,
  type PointResult,
  processCpuMs,
  processRssMb,
  type ThreadCpu,
  threadCpuMs,
} from "./closed-loop.ts";
import { IVR_SENTENCE, MEDIUM_VOICE_ENV, mediumVoiceIds, writeMediumVoice } from "./medium-voice.ts";
import { ESPEAK_DATA, MODES, type Mode } from "./throughput-engines.ts";
import { median, postSpeech } from "./tts-support.ts";

/** Client counts measured; `BENCH_CLIENTS=2,4` narrows a development run (1 must stay: it is the latency baseline). */
const CLIENTS: readonly number[] = process.env.BENCH_CLIENTS?.split(",").map(Number) ?? [1, 2, 4, 8, 16];
const SAWT_CONCURRENCY = [1, 2, 4] as const;
/**
 * Requests per engine, client count and round (at least one per client). Eight keep a block's
 * ramp-up and its lone last request (one core idle for every 2×1 engine alike) a small share.
 * One client sends one request per block: engines take turns request by request, so every
 * engine's single-request latencies are spread over the same seconds of this VM's drifting speed,
 * and each Sawt request arrives after a pause, as a lone request does (it takes the pool's solo session).
 */
const requestsFor = (clients: number): number => (clients === 1 ? 1 : Math.max(8, clients));
/** Rounds per client count: each engine runs one short block per round, engines interleaved. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
/** Rounds at a client count: eight times as many of the one-request blocks at one client. */
const roundsFor = (clients: number): number => (clients === 1 ? ROUNDS * 8 : ROUNDS);

/** One engine setting measured at every client count. */
interface Engine {
  readonly name: string;
  readonly pid: number;
  /** Whether its CPU is split by thread (Sawt's servers: where a request's time goes besides the model). */
  readonly byThread?: boolean;
  point(clients: number, requests: number): Promise<PointResult>;
}

/** A child's stdout read line by line. */
function lineReader(stream: ReadableStream<Uint8Array>): () => Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  return async () => {
    for (;;) {
      const newline = buffered.indexOf("\n");
      if (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        return line;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("engine child closed its output");
      buffered += decoder.decode(value, { stream: true });
    }
  };
}

/**
 * Starts a raw or sherpa child; resolves once warm, with one Engine per mode and the warm-up sample
 * counts. `label` names its engines (default: the kind).
 */
async function startChild(kind: "raw" | "sherpa", path: string, arg: string, label: string = kind) {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "throughput-engines.ts"), kind, path, arg], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: kind === "sherpa" ? "ignore" : "inherit", // sherpa logs every skipped stress mark
  });
  const next = lineReader(proc.stdout);
  const ready = JSON.parse(await next()) as { samples: Record<Mode, number> };
  let busy = Promise.resolve();
  const engines = MODES.map(
    (mode): Engine => ({
      name: `${label} ${mode === "1x2" ? "1×2-thread" : "2×1-thread"}`,
      pid: proc.pid,
      point(clients, requests) {
        const answer = busy.then(async () => {
          proc.stdin.write(`${JSON.stringify({ mode, clients, requests })}\n`);
          proc.stdin.flush();
          return JSON.parse(await next()) as PointResult;
        });
        busy = answer.then(() => undefined);
        return answer;
      },
    }),
  );
  return { engines, samples: ready.samples, stop: () => (proc.stdin.end(), proc.exited) };
}

async function startServer(models: string, concurrency: number) {
  const server: SawtProcess = await startSawt({
    env: {
      SAWT_MODELS_DIR: models,
      SAWT_TTS_CONCURRENCY: String(concurrency),
      SAWT_TTS_MAX_QUEUE: "64",
      ...MEDIUM_VOICE_ENV,
      SAWT_LOG_LEVEL: "warn",
    },
  });
  await waitForStatus(`${server.baseUrl}/v1/tts/health`, 200, 60_000);
  const { key } = await server.createKey({ name: "bench", rpm: 1_000_000 });
  const body = JSON.stringify({ input: IVR_SENTENCE, response_format: "pcm" });
  const speak = async (): Promise<number> => (await postSpeech(server.baseUrl, key, body)).byteLength / 2;
  let samples = 0;
  for (let i = 0; i < 2; i++) samples = await speak(); // warm-up
  const engine: Engine = {
    name: `Sawt concurrency ${concurrency}`,
    pid: server.proc.pid,
    byThread: true,
    point: (clients, requests) => closedLoop(clients, requests, speak),
  };
  return { engine, samples, stop: () => server.stop() };
}

interface Measured {
  readonly rps: number;
  readonly p50: number;
  readonly p95: number;
  readonly cores: number;
  /** Each round's block, in round order. */
  readonly roundRps: readonly number[];
  /** CPU ms per request by thread class (engines measured by thread only). */
  readonly perRequest?: ThreadCpu;
}

/** One engine's blocks at one client count: all latencies, wall and CPU time summed, and each round's req/s. */
interface Blocks {
  latencies: number[];
  wallMs: number;
  cpuMs: number;
  roundRps: number[];
  threadMs: ThreadCpu;
}

async function runBlock(engine: Engine, clients: number, into: Blocks): Promise<void> {
  const threadsBefore = engine.byThread ? threadCpuMs(engine.pid) : undefined;
  const cpuBefore = processCpuMs(engine.pid);
  const result = await engine.point(clients, requestsFor(clients));
  into.cpuMs += processCpuMs(engine.pid) - cpuBefore;
  if (threadsBefore) {
    const after = threadCpuMs(engine.pid);
    for (const kind of ["main", "workers", "runtime"] as const)
      into.threadMs[kind] += after[kind] - threadsBefore[kind];
  }
  into.wallMs += result.wallMs;
  into.latencies.push(...result.latencies);
  into.roundRps.push((result.latencies.length * 1000) / result.wallMs);
}

function perRequest(blocks: Blocks): ThreadCpu {
  const n = blocks.latencies.length;
  return { main: blocks.threadMs.main / n, workers: blocks.threadMs.workers / n, runtime: blocks.threadMs.runtime / n };
}

function summarise(blocks: Blocks, byThread: boolean): Measured {
  return {
    rps: (blocks.latencies.length * 1000) / blocks.wallMs,
    p50: percentile(blocks.latencies, 50),
    p95: percentile(blocks.latencies, 95),
    cores: blocks.cpuMs / blocks.wallMs,
    roundRps: blocks.roundRps,
    perRequest: byThread ? perRequest(blocks) : undefined,
  };
}

/**
 * Sawt's throughput over a peer's as the median of the per-round ratios: each round's two blocks
 * ran seconds apart, so a drift in the machine's speed over a run (this VM's varies by a third
 * over minutes) cancels in the round's ratio, and the median keeps one disturbed round from
 * deciding the point. Also the lowest and highest round, to show the spread.
 */
function pairedRatio(sawt: Measured, peer: Measured): { median: number; low: number; high: number } {
  const ratios = sawt.roundRps.map((rps, round) => rps / peer.roundRps[round]!);
  return { median: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios) };
}

if (!existsSync(ESPEAK_DATA)) throw new Error(`no espeak-ng data at ${ESPEAK_DATA} (Debian package espeak-ng-data)`);
const started = performance.now();
const dir = tempDir("sawt-bench-throughput-");
const models = join(dir.path, "models");
mkdirSync(models);
const packs = await writeMediumVoice(models, join(dir.path, "sherpa"));
const ids = await mediumVoiceIds(packs, IVR_SENTENCE);
// The graph a Sawt lane runs: the voice with its decoder lifted to 2-D (src/onnx/conv-lift.ts).
const lift = liftConv1d(readFileSync(packs.piper.modelPath));
if (lift.pieces === undefined) throw new Error(`the bench voice has nothing to lift: ${lift.reason}`);
const liftedPath = join(dir.path, "lifted.onnx");
writeFileSync(liftedPath, concatBytes(lift.pieces));
const [raw, rawLifted, sherpa, ...servers] = await Promise.all([
  startChild("raw", packs.piper.modelPath, JSON.stringify(ids)),
  startChild("raw", liftedPath, JSON.stringify(ids), "raw lifted"),
  startChild("sherpa", join(dir.path, "sherpa"), IVR_SENTENCE),
  ...SAWT_CONCURRENCY.map((c) => startServer(models, c)),
]);
// Of the lifted graph only two 1-thread sessions: what Sawt's lanes run (its solo session runs the original).
const RAW_LIFTED = "raw lifted 2×1-thread";
const engines: Engine[] = [
  ...raw.engines,
  ...rawLifted.engines.filter((e) => e.name === RAW_LIFTED),
  ...sherpa.engines,
  ...servers.map((s) => s.engine),
];
const results = new Map<string, Map<number, Measured>>(engines.map((e) => [e.name, new Map()]));
for (const clients of CLIENTS) {
  // Short blocks, engines interleaved in a rotating order round after round: on a shared machine
  // the load drifts over seconds, and a long block per engine would hand the drift to one engine.
  const blocks = new Map<string, Blocks>(
    engines.map((e) => [
      e.name,
      { latencies: [], wallMs: 0, cpuMs: 0, roundRps: [], threadMs: { main: 0, workers: 0, runtime: 0 } },
    ]),
  );
  for (let round = 0; round < roundsFor(clients); round++) {
    for (let i = 0; i < engines.length; i++) {
      const engine = engines[(i + round) % engines.length]!;
      await runBlock(engine, clients, blocks.get(engine.name)!);
    }
  }
  for (const engine of engines)
    results.get(engine.name)!.set(clients, summarise(blocks.get(engine.name)!, engine.byThread === true));
}
// Memory of the pools: every server has loaded the voice and run it at every client count.
const rssMb = servers.map((s) => processRssMb(s.engine.pid));
await Promise.all([raw.stop(), rawLifted.stop(), sherpa.stop(), ...servers.map((s) => s.stop())]);
dir.remove();

const sawtSamples = servers[0]!.samples;
if (raw.samples["1x2"] !== sawtSamples) throw new Error(`raw made ${raw.samples["1x2"]} samples, Sawt ${sawtSamples}`);
const get = (name: string, clients: number): Measured => results.get(name)!.get(clients)!;
const columns = CLIENTS.map((c) => `${c} client${c > 1 ? "s" : ""}`);
const head = (first: string) => `| ${first} | ${columns.join(" | ")} |\n|---|${CLIENTS.map(() => "---:|").join("")}`;
const table = (metric: (m: Measured) => string) =>
  [
    head("engine"),
    ...engines.map((e) => `| ${e.name} | ${CLIENTS.map((c) => metric(get(e.name, c))).join(" | ")} |`),
  ].join("\n");
const ratioRows = SAWT_CONCURRENCY.flatMap((c) =>
  (["sherpa 1×2-thread", "sherpa 2×1-thread", RAW_LIFTED] as const).map((peer) => {
    const cells = CLIENTS.map((n) => {
      const ratio = pairedRatio(get(`Sawt concurrency ${c}`, n), get(peer, n));
      return `**${ratio.median.toFixed(2)}** (${ratio.low.toFixed(2)}–${ratio.high.toFixed(2)})`;
    });
    return `| Sawt concurrency ${c} / ${peer} | ${cells.join(" | ")} |`;
  }),
);
const cpuPerRequest = (m: Measured): number => (m.cores * 1000) / m.rps;
const cpuTable = [
  head("engine"),
  ...engines
    .filter((e) => e.byThread)
    .map((e) => {
      const cells = CLIENTS.map((c) => {
        const split = get(e.name, c).perRequest!;
        return `${split.main.toFixed(1)} / ${split.workers.toFixed(0)} / ${split.runtime.toFixed(1)}`;
      });
      return `| ${e.name} | ${cells.join(" | ")} |`;
    }),
  ...["raw 2×1-thread", RAW_LIFTED, "sherpa 2×1-thread"].map(
    (name) => `| ${name} (all threads) | ${CLIENTS.map((c) => cpuPerRequest(get(name, c)).toFixed(0)).join(" | ")} |`,
  ),
].join("\n");
const rawTwo = get("raw 1×2-thread", 1).p50;
const rawOne = get("raw 2×1-thread", 1).p50;
const audioSeconds = sawtSamples / 22050;
const sherpaSamples = sherpa.samples["1x2"];
const single = SAWT_CONCURRENCY.map(
  (c) => `concurrency ${c}: ${(get(`Sawt concurrency ${c}`, 1).p50 / rawTwo).toFixed(2)}`,
);
const sessionsAt = (c: number): number => (c > 1 ? c + 1 : 1);
const extraSessions = sessionsAt(SAWT_CONCURRENCY.at(-1)!) - sessionsAt(SAWT_CONCURRENCY[0]);
const perSession = (rssMb.at(-1)! - rssMb[0]!) / extraSessions;
const parameters = (packs.parameters / 1e6).toFixed(1);
const mb = (packs.modelBytes / 1e6).toFixed(1);
const rtf = (rawTwo / 1000 / audioSeconds).toFixed(3);
console.log(`## TTS throughput under concurrent clients (throughput.bench.ts)

Model: a constructed Piper-medium-shaped VITS voice (test/support/models/piper-medium.ts), ${parameters} M
parameters, ${mb} MB: 6-layer encoder at hidden 192, 4-coupling flow, HiFi-GAN decoder (256 channels,
upsample 8·8·4), ${PIPER_MEDIUM.framesPerId} frames per id, 22.05 kHz. One sentence, \`${IVR_SENTENCE}\`:
${ids.length} ids → ${audioSeconds.toFixed(2)} s of audio. **Per-sentence cost: raw \`session.run\`
${rawTwo.toFixed(0)} ms on 2 threads, ${rawOne.toFixed(0)} ms on 1** (RTF ${rtf} on 2).

Engines, interleaved point by point in one run: *raw* = onnxruntime-node on the ids Sawt feeds (each session in a
worker thread, with Sawt's session options); *raw lifted* = the same on the graph Sawt's one-thread lanes run, the
voice with its HiFi-GAN decoder's ${lift.convolutions} convolutions lifted to 2-D at load (src/onnx/conv-lift.ts), so
onnxruntime uses its NCHWc kernels (raw and sherpa run the file as written); *sherpa* = sherpa-onnx-node 1.13.8 \`OfflineTts.generateAsync\` on the
same weights (VITS config, system espeak-ng-data), in a child process; *Sawt* = \`sawt serve\` with
\`SAWT_TTS_CONCURRENCY\` 1/2/4, REST \`POST /v1/tts/audio/speech\` pcm, tashkeel off (sherpa does not diacritise).
raw and sherpa run as one 2-thread session or as two 1-thread sessions, one run at a time each, requests queued FIFO.
Closed loop: each client sends its next request when its previous answer ends. Per client count, ${ROUNDS} rounds; in
each round every engine (rotating order) serves a block of ${CLIENTS.map(requestsFor).join("/")} requests (at 1 client ${roundsFor(1)} rounds of one request); an
engine's blocks are pooled (requests / summed wall time, percentiles of all latencies). Cores = the serving process's CPU time (/proc utime + stime, all threads) / wall time.
Audio per request: raw ${raw.samples["1x2"]} samples, Sawt ${sawtSamples}, sherpa ${sherpaSamples}
(sherpa / Sawt ${(sherpaSamples / sawtSamples).toFixed(2)}; sherpa phonemises with its own espeak-ng).
Bench time ${((performance.now() - started) / 1000).toFixed(0)} s.

Throughput (requests/s):

${table((m) => m.rps.toFixed(2))}

Latency p50 / p95 (ms):

${table((m) => `${m.p50.toFixed(0)} / ${m.p95.toFixed(0)}`)}

Cores used:

${table((m) => m.cores.toFixed(2))}

CPU per request (ms) of each Sawt server by thread — main (event loop: HTTP, auth, JSON, text
front-end, PCM levelling and encoding) / workers (onnxruntime sessions and espeak-ng) / runtime (JIT,
GC, allocator) — beside the whole CPU per request of raw and sherpa as two 1-thread sessions. What
Sawt spends besides the model is main + runtime, plus what its cores idle between a lane's runs:

${cpuTable}

Throughput ratios (goal, issue #19: from 2 clients up, Sawt ≥ 1.15× sherpa 1×2-thread and ≥ 1.0×
sherpa 2×1-thread), each the median over the rounds (${ROUNDS}; ${roundsFor(1)} of one request at 1 client) of Sawt's block / the peer's block in the same
round (lowest–highest round in brackets): paired within a round, a drift of the machine's speed between
rounds cancels, which the pooled req/s above do not do. Against *raw lifted* the ratio is the serving
layer's cost on the very graph Sawt's lanes run (1.0 = none).

${head("ratio")}
${ratioRows.join("\n")}

Single-request latency, Sawt / raw 2-thread (1 client, p50 of ${roundsFor(1)} requests each, taken in turns with every
other engine; goal ≤ 1.05): ${single.join(", ")}.

Memory (RSS of each server after the run; sessions per voice: concurrency 1 → 1, N > 1 → N lanes
+ 1 solo): ${SAWT_CONCURRENCY.map((c, i) => `concurrency ${c} ${rssMb[i]!.toFixed(0)} MB`).join(", ")};
**${perSession.toFixed(0)} MB per extra session** of this ${mb} MB voice
((concurrency ${SAWT_CONCURRENCY.at(-1)} − concurrency 1) / ${extraSessions} sessions).
`);
process.exit(0);
