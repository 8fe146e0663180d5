/**
 * Child process of the throughput benchmark: one engine other than Sawt, driven by the parent
 * over stdin/stdout (one JSON line each way per load point), so its CPU time is its own and its
 * onnxruntime never shares a process with another.
 *
 * - `raw <model.onnx> <ids JSON>`: bare onnxruntime-node on the exact ids Sawt feeds, each
 *   session in a worker thread (throughput-worker.ts): `1x2` is one 2-thread session, `2x1` two
 *   1-thread sessions.
 * - `sherpa <pack dir> <text>`: sherpa-onnx-node's OfflineTts (VITS, espeak-ng Arabic):
 *   `1x2` is one OfflineTts with numThreads 2, `2x1` two with numThreads 1, driven through
 *   `generateAsync` so both run at once.
 *
 * Each runner takes one request at a time; requests queue for the next free runner (FIFO), as
 * a server's admission queue does. Lines in: `{"mode","clients","requests"}`; out: a PointResult.
 * The first line out is `{"ready":true,"samples":{mode: n}}` after two warm-up runs per runner.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { closedLoop, RunnerPool } from "./closed-loop.ts";
import type { ToRawWorker } from "./throughput-worker.ts";

/** The two ways each engine is run. */
export const MODES = ["1x2", "2x1"] as const;
/** One of {@link MODES}. */
export type Mode = (typeof MODES)[number];

/** System espeak-ng data (Debian espeak-ng-data), as sherpa.bench.ts uses. */
export const ESPEAK_DATA = "/usr/lib/x86_64-linux-gnu/espeak-ng-data";

type Runner = () => Promise<number>;

function rawRunner(modelPath: string, threads: number, ids: number[]): Promise<Runner> {
  const worker = new Worker(join(import.meta.dir, "throughput-worker.ts"));
  let pending: ((reply: { ok: boolean; samples?: number; error?: string }) => void) | undefined;
  worker.onmessage = (event) => pending?.(event.data);
  const call = (message: ToRawWorker): Promise<number> =>
    new Promise((resolve, reject) => {
      pending = (reply) => (reply.ok ? resolve(reply.samples!) : reject(new Error(reply.error)));
      worker.postMessage(message);
    });
  return call({ op: "open", modelPath, threads }).then(() => () => call({ op: "run", ids, lengthScale: 1 }));
}

interface SherpaTts {
  generateAsync(request: { text: string; sid: number; speed: number }): Promise<{ samples: Float32Array }>;
}

function sherpaRunner(dir: string, threads: number, text: string): Runner {
  // sherpa-onnx-node is CommonJS without type declarations; it carries its own onnxruntime.
  const sherpa = createRequire(import.meta.path)("sherpa-onnx-node") as {
    OfflineTts: new (config: unknown) => SherpaTts;
  };
  const tts = new sherpa.OfflineTts({
    model: {
      vits: { model: join(dir, "model.onnx"), tokens: join(dir, "tokens.txt"), dataDir: ESPEAK_DATA },
      numThreads: threads,
      provider: "cpu",
      debug: 0,
    },
    maxNumSentences: 1,
  });
  return async () => (await tts.generateAsync({ text, sid: 0, speed: 1 })).samples.length;
}

async function main(): Promise<void> {
  const [kind, path, arg] = process.argv.slice(2) as [string, string, string];
  let runners: Record<Mode, Runner[]>;
  if (kind === "raw") {
    const ids = JSON.parse(arg) as number[];
    const [two, a, b] = await Promise.all([1, 2, 3].map((i) => rawRunner(path, i === 1 ? 2 : 1, ids)));
    runners = { "1x2": [two!], "2x1": [a!, b!] };
  } else {
    runners = { "1x2": [sherpaRunner(path, 2, arg)], "2x1": [sherpaRunner(path, 1, arg), sherpaRunner(path, 1, arg)] };
  }
  const samples: Record<string, number> = {};
  for (const mode of MODES) {
    for (const run of runners[mode]) for (let i = 0; i < 2; i++) samples[mode] = await run();
  }
  const pools = { "1x2": new RunnerPool(runners["1x2"]), "2x1": new RunnerPool(runners["2x1"]) };
  process.stdout.write(`${JSON.stringify({ ready: true, samples })}\n`);
  for await (const line of console) {
    if (line.trim() === "") continue;
    const { mode, clients, requests } = JSON.parse(line) as { mode: Mode; clients: number; requests: number };
    const result = await closedLoop(clients, requests, () => pools[mode].run());
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
  process.exit(0);
}

if (import.meta.main) await main();
