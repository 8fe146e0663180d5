/**
 * Load pieces of the throughput benchmark: a closed-loop client driver, a pool of serial runners
 * (an engine with K sessions, each running one inference at a time, taking queued requests in
 * arrival order), percentiles, and a process's CPU time and memory from /proc, whole or by thread.
 * Not a benchmark itself.
 */
import { readdirSync, readFileSync } from "node:fs";

/** What one load point measured. */
export interface PointResult {
  /** Per request, from send to the answer's end (ms). */
  readonly latencies: number[];
  readonly wallMs: number;
  /** Audio samples of the first answer (the work check). */
  readonly samples: number;
}

/**
 * `clients` closed-loop clients: each sends its next request when its previous answer ends,
 * until `requests` have been sent in all. `send` resolves to the answer's sample count.
 */
export async function closedLoop(clients: number, requests: number, send: () => Promise<number>): Promise<PointResult> {
  const latencies: number[] = [];
  let issued = 0;
  let samples = -1;
  const started = performance.now();
  const client = async (): Promise<void> => {
    while (issued < requests) {
      issued++;
      const sent = performance.now();
      const got = await send();
      latencies.push(performance.now() - sent);
      if (samples < 0) samples = got;
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  return { latencies, wallMs: performance.now() - started, samples };
}

/** Serial runners shared by one queue: a request waits until a runner is free (FIFO). */
export class RunnerPool {
  private readonly idle: Array<() => Promise<number>>;
  private readonly waiting: Array<(runner: () => Promise<number>) => void> = [];

  constructor(runners: ReadonlyArray<() => Promise<number>>) {
    this.idle = [...runners];
  }

  /** Runs one request on the next free runner; resolves to its sample count. */
  async run(): Promise<number> {
    const runner = this.idle.pop() ?? (await new Promise<() => Promise<number>>((r) => this.waiting.push(r)));
    try {
      return await runner();
    } finally {
      const next = this.waiting.shift();
      if (next) next(runner);
      else this.idle.push(runner);
    }
  }
}

/** Median of `values` (milliseconds, usually). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The `p`-th percentile (0–100) of `values`, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

const CLOCK_TICKS = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;

/** User + system CPU time in ms from a /proc `stat` line. */
function statCpuMs(stat: string): number {
  // Fields after the command name (which may hold spaces) start at field 3; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** User + system CPU time of process `pid`, all its threads, in ms (from /proc/<pid>/stat). */
export function processCpuMs(pid: number): number {
  return statCpuMs(readFileSync(`/proc/${pid}/stat`, "utf8"));
}

/** Where a process's threads spend CPU: its main (JS event-loop) thread, Bun `Worker` threads, the rest. */
export interface ThreadCpu {
  /** The event loop: HTTP, JSON, auth, text front-end, PCM levelling and encoding. */
  main: number;
  /** Bun Worker threads and the threads they start: onnxruntime sessions (with their intra-op pools) and espeak-ng. */
  workers: number;
  /** Everything else: JIT compilers, garbage collector helpers, the allocator's scavenger, I/O threads. */
  runtime: number;
}

/** CPU time (ms) of each thread class of `pid` so far; a thread that ended meanwhile drops out. */
export function threadCpuMs(pid: number): ThreadCpu {
  const sum: ThreadCpu = { main: 0, workers: 0, runtime: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue; // the thread ended between the listing and the read
    }
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    // Linux copies a thread's name to the threads it creates, so onnxruntime's pool threads are "Worker" too.
    const kind = Number(tid) === pid ? "main" : name === "Worker" ? "workers" : "runtime";
    sum[kind] += statCpuMs(stat);
  }
  return sum;
}

/** Resident memory of process `pid` in MB (from /proc/<pid>/status). */
export function processRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
}
