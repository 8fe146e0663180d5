/**
 * Issue 39, acceptance 2: every door beyond REST, WebSocket and gRPC (those are fuzz.test.ts) is
 * fuzzed with seeded cases against one real box (./box.ts) — SIP over UDP and TCP, SDP offers,
 * MRCP messages, RTP, the jobs API — and per door: every answer in the door's contract, the
 * server alive and healthy, and no session, RTP port or file descriptor left after the door's
 * settle time. All the while a watch samples the server's sockets (and its jobs worker's) and
 * finds none to an address that is neither loopback nor a configured webhook host.
 *
 * SAWT_DOOR_CASES sizes each door (CI: 300; `bun run reliability`: 10,000); SAWT_FUZZ_SEED
 * replays a run; SAWT_DOORS (names, comma-separated, any case) runs only those doors.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startBox, type Box } from "./box.ts";
import { FUZZ_DOORS } from "./doors/index.ts";
import { fuzzDoor, type DoorReport } from "./doors/harness.ts";
import { type Egress, watchSockets } from "./probes.ts";
import { recordFigures } from "./server.ts";

const SEED = Number(process.env.SAWT_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const CASES = Number(process.env.SAWT_DOOR_CASES ?? 300);
const CONCURRENCY = 8;
const ONLY = (process.env.SAWT_DOORS ?? "")
  .split(",")
  .map((name) => name.trim().toLowerCase())
  .filter(Boolean);

let box: Box;
let watch: ReturnType<typeof watchSockets>;
const reports: DoorReport[] = [];

beforeAll(async () => {
  box = await startBox();
  watch = watchSockets(() => (box.sawt.proc.exitCode === null ? box.pids() : []), box.webhookAddresses);
}, 60_000);

afterAll(async () => {
  watch?.stop();
  await box?.close();
});

describe(`the doors under a seeded fuzz (seed ${SEED}, ${CASES} cases each)`, () => {
  for (const [i, door] of FUZZ_DOORS.entries()) {
    if (ONLY.length > 0 && !ONLY.includes(door.name.toLowerCase())) continue;
    test(
      `does keep ${door.name} in its contract, alive, and leaking nothing`,
      async () => {
        console.log(`door fuzz seed ${SEED} (replay: SAWT_FUZZ_SEED=${SEED} SAWT_DOOR_CASES=${CASES})`);
        if (box.sawt.proc.exitCode !== null) box = await startBox();
        const report = await fuzzDoor(door, box, { seed: SEED + i, cases: CASES, concurrency: CONCURRENCY });
        reports.push(report);
        const { violations, outcomes, ...figures } = report;
        console.log(`${door.name}: ${JSON.stringify(figures)}`);
        console.log(`${door.name} outcomes: ${JSON.stringify(outcomes)}`);
        for (const v of violations) console.log(`violation [${door.name}] ${v}`);
        expect(report.cases).toBeGreaterThanOrEqual(CASES);
        expect(violations).toEqual([]);
        expect(report.crashes).toBe(0);
        expect(report.leaks).toEqual({ sessions: 0, ports: 0, fds: 0, processes: 0 });
      },
      Math.max(120_000, CASES * 60),
    );
  }

  test("does open no socket to an address that is neither loopback nor a configured webhook host", async () => {
    const seen: Egress[] = watch.stop();
    console.log(`socket watch: ${watch.samples()} samples, ${seen.length} non-local sockets`);
    await recordFigures("doors", {
      seed: SEED,
      cases: CASES,
      reports,
      watch: {
        samples: watch.samples(),
        egress: seen.map((e) => `${e.socket.proto} ${e.socket.remote}:${e.socket.remotePort}`),
      },
    });
    expect(seen.map((e) => `${e.socket.proto} → ${e.socket.remote}:${e.socket.remotePort}`)).toEqual([]);
    expect(watch.samples()).toBeGreaterThan(10);
  });
});
