/**
 * Runs one fuzzed door against a box and measures what issue 39's acceptance 2 asks per door:
 * cases, non-contract answers, crashes, and sessions, RTP ports, file descriptors and child
 * processes (a jobs worker must leave when idle) leaked. A
 * short warm-up of the same door comes first (uncounted), so what a first use opens for good (the
 * jobs database, a worker's pipes, a codec) is in the baseline and not read as a leak. After the
 * run the box gets the door's settle time to free what the cases left on purpose (sessions to
 * their idle timeout, jobs to their end); what is still held then is a leak.
 */
import type { Box } from "../box.ts";
import type { DoorPlan, FuzzDoor } from "./door.ts";
import { heldFds } from "../probes.ts";
import { addedLinks, fdLinks } from "../support.ts";

/** One door's figures. */
export interface DoorReport {
  readonly door: string;
  readonly covers: string;
  readonly cases: number;
  readonly nonContract: number;
  readonly crashes: number;
  /** Held after the settle time beyond the baseline; `processes`: child processes (a jobs worker that never left). */
  readonly leaks: {
    readonly sessions: number;
    readonly ports: number;
    readonly fds: number;
    readonly processes: number;
  };
  readonly before: Reading;
  readonly after: Reading;
  readonly outcomes: Record<string, number>;
  /** The first violations, for the log. */
  readonly violations: string[];
  /** What the descriptors held beyond the baseline point at, when any are. */
  readonly fdsAdded: string[];
  readonly seconds: number;
}

/** What the box holds at one moment. */
export interface Reading {
  readonly fds: number;
  readonly ports: number;
  readonly sessions: number;
  readonly processes: number;
}

/** Calls open and call-door connections held (AudioSocket, chan_websocket), over every door. */
function callsHeld(metrics: Map<string, number>): number {
  let held = 0;
  for (const [name, value] of metrics)
    if (name.startsWith("sawt_calls{") || name.startsWith("sawt_call_connections{")) held += value;
  return held;
}

async function read(box: Box): Promise<Reading> {
  const metrics = await box.metrics();
  return {
    fds: heldFds(box.sawt.proc.pid),
    ports: box.rtpPorts(),
    sessions: (metrics.get("sawt_mrcp_sessions") ?? 0) + callsHeld(metrics),
    processes: box.pids().length - 1,
  };
}

/** Fuzzes `door` on `box` with `plan` (and a warm-up of `warmCases` first). */
export async function fuzzDoor(door: FuzzDoor, box: Box, plan: DoorPlan, warmCases = 50): Promise<DoorReport> {
  await door.prepare?.(box);
  await door.run(box, { ...plan, seed: plan.seed ^ 0x5eed, cases: Math.min(warmCases, plan.cases) });
  const baseline = await settle(box, door.settleMs, undefined);
  const linksBefore = fdLinks(box.sawt.proc.pid);
  const started = performance.now();
  const tally = await door.run(box, plan);
  const seconds = (performance.now() - started) / 1000;
  const crashed = box.sawt.proc.exitCode !== null;
  const after = crashed ? baseline : await settle(box, door.settleMs, baseline);
  const health = crashed ? 0 : (await fetch(`${box.sawt.baseUrl}/health`).catch(() => undefined))?.status;
  return {
    door: door.name,
    covers: door.covers,
    cases: tally.cases,
    nonContract: tally.violations.length,
    crashes: crashed || health !== 200 ? 1 : 0,
    leaks: {
      sessions: Math.max(0, after.sessions - baseline.sessions),
      ports: Math.max(0, after.ports - baseline.ports),
      fds: Math.max(0, after.fds - baseline.fds),
      processes: Math.max(0, after.processes - baseline.processes),
    },
    before: baseline,
    after,
    outcomes: tally.outcomes,
    violations: tally.violations.slice(0, 20),
    fdsAdded: crashed || after.fds <= baseline.fds ? [] : addedLinks(fdLinks(box.sawt.proc.pid), linksBefore),
    seconds,
  };
}

/**
 * Waits (up to `settleMs` and a few seconds more) until the box holds no more than `baseline`
 * (no session, no RTP port, descriptors back), then reads it; without a baseline, waits until no
 * session is open and the descriptor count is steady, and reads that.
 */
async function settle(box: Box, settleMs: number, baseline: Reading | undefined): Promise<Reading> {
  const deadline = performance.now() + settleMs + 5000;
  let last = await read(box);
  for (;;) {
    await Bun.sleep(250);
    const now = await read(box);
    const done = baseline
      ? now.sessions <= baseline.sessions &&
        now.ports <= baseline.ports &&
        now.fds <= baseline.fds &&
        now.processes <= baseline.processes
      : now.sessions === 0 && now.ports === 0 && now.processes === 0 && now.fds === last.fds;
    last = now;
    if (done || performance.now() > deadline) return now;
  }
}
