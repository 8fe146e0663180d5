/**
 * Issue #17 acceptance 2: under a steady load of REST speech, gRPC Synthesize and WebSocket
 * sessions through HAProxy, box 2 gets SIGTERM and box 3 SIGKILL. Every request succeeds (directly
 * or through HAProxy's retry on another box) except requests in flight on the killed box at the
 * moment of the kill; the draining box gets no request once HAProxy has seen its /ready turn 503,
 * and refuses none (it drains only after the balancer stopped sending).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BACKENDS, boxCli, haproxyBinary, showStat, startCluster, type Cluster, shareLoadKey } from "./cluster.ts";
import { startLoad, unexplainedFailures, type Outcome } from "./load.ts";

const haproxy = haproxyBinary();
let cluster: Cluster;
let key: string;

beforeAll(async () => {
  cluster = await startCluster(haproxy, {
    count: 3,
    async prepare(c) {
      key = await shareLoadKey(c);
    },
  });
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
});

interface Watch {
  readyTurned503?: number;
  /** When HAProxy first showed the box DOWN, per backend. */
  down: (number | undefined)[];
}

/** Polls a box's /ready and its HAProxy state every 50 ms until stopped (bounded by `maxMs`). */
function watchBox(name: string, url: string, maxMs: number): { watch: Watch; stop(): Promise<void> } {
  const watch: Watch = { down: [undefined, undefined, undefined] };
  let running = true;
  const deadline = Date.now() + maxMs;
  const done = (async () => {
    while (running && Date.now() < deadline) {
      const now = Date.now();
      if (watch.readyTurned503 === undefined) {
        const status = await fetch(`${url}/ready`).then(
          (r) => r.status,
          () => 0,
        );
        if (status === 503) watch.readyTurned503 = now;
      }
      const states = await cluster.serverStatus(name).catch(() => []);
      states.forEach((s, i) => {
        // "UP 1/2" is a box still in rotation after one failed check; DOWN takes it out.
        if (s.startsWith("DOWN") && watch.down[i] === undefined) watch.down[i] = Date.now();
      });
      await Bun.sleep(50);
    }
  })();
  return {
    watch,
    async stop() {
      running = false;
      await done;
    },
  };
}

/** A box's request log lines (HTTP and gRPC) with the time each request arrived. */
function arrivals(logs: readonly string[]): { start: number; kind: "http" | "grpc"; status: string; route: string }[] {
  return logs
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return undefined;
      }
    })
    .filter((r): r is Record<string, unknown> => r !== undefined && (r.msg === "request" || r.msg === "grpc"))
    .filter((r) => r.msg === "grpc" || (typeof r.route === "string" && /speech|\/ws$/.test(r.route)))
    .map((r) => ({
      start: Date.parse(r.time as string) - Number(r.ms ?? 0),
      kind: r.msg === "grpc" ? ("grpc" as const) : ("http" as const),
      status: String(r.msg === "grpc" ? r.code : r.status),
      route: String(r.route ?? r.method),
    }));
}

function summary(outcomes: readonly Outcome[]): string {
  const kinds = ["rest", "grpc", "ws"] as const;
  return kinds
    .map((k) => {
      const mine = outcomes.filter((o) => o.kind === k);
      return `${k}: ${mine.filter((o) => o.ok).length}/${mine.length} ok`;
    })
    .join(", ");
}

describe("failover behind HAProxy", () => {
  test("does lose no request but those in flight on a killed box when one box drains and another dies under load", async () => {
    const [, box2, box3] = cluster.boxes as [
      (typeof cluster.boxes)[0],
      (typeof cluster.boxes)[0],
      (typeof cluster.boxes)[0],
    ];
    const load = startLoad({ httpPort: cluster.front.http, grpcTtsPort: cluster.front.grpc_tts, key, maxMs: 40_000 });
    const watcher = watchBox(box2.name, box2.url, 40_000);
    await Bun.sleep(3000);
    const termAt = Date.now();
    box2.process!.proc.kill("SIGTERM");
    await Bun.sleep(1500);
    const killAt = Date.now();
    box3.process!.proc.kill("SIGKILL");
    await Bun.sleep(6000);
    const outcomes = await load.stop();
    await watcher.stop();
    const box2Exit = await box2.process!.stop();
    await box3.process!.stop();

    const stats = await showStat(cluster.socket);
    const retried = BACKENDS.map((be) => stats.find((r) => r.pxname === be && r.svname === "BACKEND")).map(
      (r) => `${r?.pxname}: ${r?.wretr} retries, ${r?.wredis} redispatched`,
    );
    console.info(`HAProxy: ${retried.join("; ")}`);
    const failures = unexplainedFailures(outcomes, [killAt]);
    const inFlightAtKill = outcomes.filter((o) => !o.ok).length - failures.length;
    console.info(
      `${outcomes.length} requests (${summary(outcomes)}); ${inFlightAtKill} failed in flight on the killed box`,
    );
    expect(failures).toEqual([]);
    for (const kind of ["rest", "grpc", "ws"] as const) {
      expect(outcomes.filter((o) => o.kind === kind && o.ok && o.start > killAt + 1000).length).toBeGreaterThan(0);
    }

    // The draining box: /ready turned 503 at once, HAProxy noticed within the grace period, no
    // request arrived after that, none was refused, and it exited cleanly after draining.
    const { readyTurned503, down } = watcher.watch;
    expect(readyTurned503).toBeDefined();
    expect(readyTurned503! - termAt).toBeLessThan(1000);
    for (const at of down) {
      expect(at).toBeDefined();
      expect(at! - readyTurned503!).toBeLessThan(3000);
    }
    const seen = arrivals(box2.process!.logs);
    const httpDown = down[0]!;
    const grpcDown = down[2]!;
    const late = seen.filter((a) => a.start > (a.kind === "grpc" ? grpcDown : httpDown) + 20);
    console.info(
      `box 2 served ${seen.length} requests, ${seen.filter((a) => a.start > readyTurned503!).length} of them after /ready turned 503 and before HAProxy saw it`,
    );
    expect(late).toEqual([]);
    expect(seen.filter((a) => a.status === "503" || a.status === "UNAVAILABLE")).toEqual([]);
    expect(box2Exit).toBe(0);
  }, 90_000);
});
