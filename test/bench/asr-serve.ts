/**
 * Serving pieces of the sequence-to-sequence benchmarks (moonshine.bench.ts, whisper-hf.bench.ts):
 * `sawt serve` from this checkout with given settings, its resident memory once idle, and rounds
 * of closed-loop transcription clients with the memory they drive it to, and the in-process
 * timing rounds the benches compare paths by. Not a benchmark itself.
 */
import { type SawtProcess, startSawt, waitForStatus } from "../support/sawt.ts";
import { closedLoop, median, processRssMb } from "./closed-loop.ts";

/** A server that answered /ready, its idle memory, and its ASR health reply. */
export interface IdleServer {
  readonly sawt: SawtProcess;
  /** RSS `settleMs` after /ready first answered 200. */
  readonly idleMb: number;
  readonly health: Record<string, unknown>;
}

/** Starts `sawt serve` with `env`, waits for /ready, lets it settle `settleMs`, and reads its RSS. */
export async function idleServer(env: Record<string, string>, settleMs = 3000): Promise<IdleServer> {
  const sawt = await startSawt({ env: { SAWT_LOG_LEVEL: "warn", ...env } });
  try {
    await waitForStatus(`${sawt.baseUrl}/ready`, 200, 120_000);
    await Bun.sleep(settleMs);
    const idleMb = processRssMb(sawt.proc.pid);
    const health = (await (await fetch(`${sawt.baseUrl}/v1/asr/health`)).json()) as Record<string, unknown>;
    return { sawt, idleMb, health };
  } catch (error) {
    await sawt.stop("SIGKILL");
    throw error;
  }
}

/** What rounds of concurrent transcriptions measured. */
export interface LoadResult {
  /** Requests per second of each round. */
  readonly throughput: number[];
  /** Highest RSS sampled (every 100 ms) while requests ran, MB. */
  readonly peakMb: number;
  /** RSS 3 s after the last round, MB. */
  readonly afterMb: number;
  /** Text of the first answer (the work check). */
  readonly text: string;
}

/**
 * `rounds` rounds of `clients` closed-loop clients posting `wav` (its bytes) to
 * /v1/asr/audio/transcriptions, `perRound` requests a round; one warm-up round first, not counted.
 */
export async function transcriptionLoad(
  server: SawtProcess,
  wav: Uint8Array,
  options: { clients: number; perRound: number; rounds: number },
): Promise<LoadResult> {
  const { key } = await server.createKey({ name: "bench", rpm: 1_000_000 });
  let text = "";
  const send = async (): Promise<number> => {
    const form = new FormData();
    form.append("file", new Blob([wav]), "speech.wav");
    form.append("response_format", "json");
    const res = await fetch(`${server.baseUrl}/v1/asr/audio/transcriptions`, {
      method: "POST",
      headers: { "X-API-Key": key },
      body: form,
    });
    const body = (await res.json()) as { text?: string };
    if (res.status !== 200) throw new Error(`transcription failed: ${res.status} ${JSON.stringify(body)}`);
    text ||= body.text ?? "";
    return 1;
  };
  await closedLoop(options.clients, options.clients, send);
  let peakMb = 0;
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, processRssMb(server.proc.pid))), 100);
  const throughput: number[] = [];
  try {
    for (let round = 0; round < options.rounds; round++) {
      const { wallMs } = await closedLoop(options.clients, options.perRound, send);
      throughput.push(options.perRound / (wallMs / 1000));
    }
  } finally {
    clearInterval(sampler);
  }
  await Bun.sleep(3000);
  return { throughput, peakMb, afterMb: processRssMb(server.proc.pid), text };
}

/** Wall and CPU time (ms) of each path in every round. */
export interface RoundTimes<K extends string> {
  readonly ms: Record<K, number[]>;
  /** CPU time of the whole process (every thread): less swayed than wall time by other processes. */
  readonly cpu: Record<K, number[]>;
}

/**
 * Runs each of `paths` once untimed, then `rounds` rounds of each once, in an order that rotates
 * each round so a slow stretch of the machine does not always hit the same path.
 */
export async function timeRounds<K extends string>(
  paths: Record<K, () => Promise<unknown>>,
  rounds: number,
): Promise<RoundTimes<K>> {
  const names = Object.keys(paths) as K[];
  const times = () => Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  const ms = times();
  const cpu = times();
  for (const name of names) await paths[name]();
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length]!;
      const started = performance.now();
      const cpuBefore = process.cpuUsage();
      await paths[name]();
      ms[name].push(performance.now() - started);
      const used = process.cpuUsage(cpuBefore);
      cpu[name].push((used.user + used.system) / 1000);
    }
  }
  return { ms, cpu };
}

/** `median (lowest–highest)` of `values` with `digits` decimals. */
export function spread(values: readonly number[], digits = 2): string {
  return `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
}
