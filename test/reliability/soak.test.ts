/**
 * The mixed soak (issue 39; issue #16's soak, now over every door): steady load on one box
 * (./box.ts) — REST speech and uploads, a malformed body, the TTS and realtime WebSockets, gRPC
 * synthesis and recognition, MRCP sessions that SPEAK and RECOGNIZE, and a transcription job
 * always running (./soak/index.ts lists them; a new door is one row) — for SAWT_SOAK_SECONDS
 * (180 in CI; `bun run reliability --soak-seconds 1800` for the 30-minute run), sampling each
 * second the server's resident memory, its descriptors and the latency of /health. Asserted:
 * every call answered by its door's contract; RSS flat — the median of the last quarter within
 * 10% (at least 24 MiB) of the median of the first quarter after a 5 s warm-up at the same load;
 * the idle descriptor count after the run no higher than before it, no MRCP session left open;
 * /health answered 200 throughout.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { until } from "../support/sawt.ts";
import { startBox, type Box } from "./box.ts";
import { heldFds } from "./probes.ts";
import { recordFigures } from "./server.ts";
import { SOAK_BACKGROUND, SOAK_ROWS } from "./soak/index.ts";
import { emptyStats, type RowStats, tally } from "./soak/row.ts";
import { addedLinks, fdLinks, memoryOf, mib } from "./support.ts";

const SECONDS = Number(process.env.SAWT_SOAK_SECONDS ?? 180);
/** Load before the first sample: the soak measures steady state, not start-up growth. */
const WARMUP_SECONDS = 5;
const WORKERS = 3;
const MiB = 1024 * 1024;
let box: Box;

beforeAll(async () => {
  box = await startBox();
}, 60_000);
afterAll(() => box?.close());

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

/** One round: every row once, at once. */
async function round(i: number, stats: Map<string, RowStats>): Promise<void> {
  await Promise.all(SOAK_ROWS.map((row) => tally(stats.get(row.name)!, () => row.call(box, i))));
}

async function sessions(): Promise<number> {
  return (await box.metrics()).get("sawt_mrcp_sessions") ?? Number.NaN;
}

test(
  `does keep RSS flat, descriptors from growing and every door in its contract over a ${SECONDS} s mixed soak`,
  async () => {
    const pid = box.sawt.proc.pid;
    const stats = new Map(SOAK_ROWS.map((row) => [row.name, emptyStats()]));
    const background = SOAK_BACKGROUND.map((load) => ({ name: load.name, run: load.start(box) }));
    // Warm-up at the soak's own concurrency for WARMUP_SECONDS, so connection pools, the
    // allocator's arenas and ONNX's have their steady size: twelve rounds were not enough, and a
    // first quarter still growing (225–248 MiB across CI runs whose last quarter read 240–257)
    // once read as 26.5 MiB of growth.
    const warmStats = new Map(SOAK_ROWS.map((row) => [row.name, emptyStats()]));
    const warmUntil = performance.now() + WARMUP_SECONDS * 1000;
    let warmRounds = 0;
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        while (performance.now() < warmUntil) await round(warmRounds++, warmStats);
      }),
    );
    await Bun.sleep(300);
    const linksBefore = fdLinks(pid);
    const fdsBefore = heldFds(pid);
    const samples: Array<{ t: number; rss: number; fds: number; healthMs: number; health: number }> = [];
    const started = performance.now();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const at = performance.now();
        const response = await fetch(`${box.sawt.baseUrl}/health`).catch(() => undefined);
        await response?.arrayBuffer();
        const healthMs = performance.now() - at;
        samples.push({
          t: (at - started) / 1000,
          rss: memoryOf(pid).rss,
          fds: heldFds(pid),
          healthMs,
          health: response?.status ?? 0,
        });
        await Bun.sleep(Math.max(0, 1000 - healthMs));
      }
    })();
    let rounds = 0;
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        while (performance.now() - started < SECONDS * 1000) await round(rounds++, stats);
      }),
    );
    sampling = false;
    await sampler;
    for (const load of background) stats.set(load.name, await load.run.stop());
    // Idle again: sessions end, WebSockets close, the jobs worker leaves.
    await until(
      async () => heldFds(pid) <= fdsBefore && (await sessions()) === 0,
      () => `fds to return to ${fdsBefore} (now ${heldFds(pid)}) and sessions to 0`,
      { timeoutMs: 15_000, everyMs: 200 },
    ).catch(() => undefined);
    const fdsAfter = heldFds(pid);
    if (fdsAfter > fdsBefore) console.log(`fds added: ${addedLinks(fdLinks(pid), linksBefore).join(", ")}`);
    const quarter = Math.max(1, Math.floor(samples.length / 4));
    const early = median(samples.slice(0, quarter).map((s) => s.rss));
    const late = median(samples.slice(-quarter).map((s) => s.rss));
    const tolerance = Math.max(24 * MiB, early * 0.1);
    const health = samples.map((s) => s.healthMs);
    const rows = Object.fromEntries([...stats].map(([name, s]) => [name, { calls: s.calls, outcomes: s.outcomes }]));
    const breaches = [...stats].flatMap(([name, s]) => s.breaches.map((b) => `${name}: ${b}`));
    const shown = [...stats].flatMap(([name, s]) => s.breaches.slice(0, 3).map((b) => `${name}: ${b}`));
    const figures = {
      seconds: SECONDS,
      rounds,
      calls: [...stats.values()].reduce((sum, s) => sum + s.calls, 0),
      rows,
      rss: { early: mib(early), late: mib(late), peak: mib(memoryOf(pid).peak), tolerance: mib(tolerance) },
      fds: { before: fdsBefore, after: fdsAfter, max: Math.max(...samples.map((s) => s.fds)) },
      healthMs: { p50: quantile(health, 0.5), p99: quantile(health, 0.99), max: Math.max(...health) },
      sessionsAfter: await sessions(),
    };
    console.log(`soak: ${JSON.stringify(figures)}`);
    for (const breach of shown) console.log(`breach ${breach}`);
    await recordFigures("soak", {
      ...figures,
      breaches: breaches.length,
      samples: samples.map((s) => ({
        t: Math.round(s.t),
        rss: Math.round(s.rss / MiB),
        fds: s.fds,
        healthMs: Math.round(s.healthMs * 10) / 10,
      })),
    });
    expect(breaches).toEqual([]);
    for (const row of SOAK_ROWS) expect(stats.get(row.name)!.calls).toBeGreaterThan(0);
    expect(samples.filter((s) => s.health !== 200).map((s) => `${s.t.toFixed(0)} s: ${s.health}`)).toEqual([]);
    expect(late - early).toBeLessThanOrEqual(tolerance);
    expect(fdsAfter).toBeLessThanOrEqual(fdsBefore);
    expect(figures.sessionsAfter).toBe(0);
  },
  (SECONDS + 180) * 1000,
);
