/**
 * Issue #17 acceptance 5: installer/rolling-upgrade.sh upgrades three real boxes behind HAProxy
 * one at a time under a steady load of REST, gRPC and WebSocket requests, with no failed request.
 * The "upgrade" is a restart of the box's process on the same ports and data (what install.sh of a
 * new bundle does to a box): the script's command asks this test to do it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/sawt.ts";
import { boxCli, haproxyBinary, metric, startBox, startCluster, type Cluster, shareLoadKey } from "./cluster.ts";
import { startLoad, unexplainedFailures } from "./load.ts";

const haproxy = haproxyBinary();
let cluster: Cluster;
let key: string;
let control: ReturnType<typeof Bun.serve> | undefined;

beforeAll(async () => {
  cluster = await startCluster(haproxy, {
    count: 3,
    async prepare(c) {
      key = await shareLoadKey(c);
    },
  });
}, 90_000);

afterAll(async () => {
  control?.stop(true);
  await cluster?.stop();
});

describe("rolling upgrade", () => {
  test("does upgrade three boxes one at a time with no failed request when under load", async () => {
    const upgraded: string[] = [];
    // The upgrade command's other end: stop the box (SIGTERM, its own drain), start it again.
    control = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        const name = new URL(request.url).pathname.split("/").pop();
        const box = cluster.boxes.find((b) => b.name === name);
        if (!box || request.method !== "POST") return new Response("no such box", { status: 404 });
        const code = await box.process!.stop("SIGTERM");
        if (code !== 0) return new Response(`old process exited ${code}`, { status: 500 });
        await startBox({ ...box, env: { ...box.env, SAWT_TEST_RELEASE: "2" } } as typeof box).then(
          (p) => (box.process = p),
        );
        upgraded.push(box.name);
        return new Response("upgraded");
      },
    });
    const upgradeScript = join(cluster.dir, "upgrade.ts");
    writeFileSync(
      upgradeScript,
      `const r = await fetch("http://127.0.0.1:${control.port}/upgrade/" + process.env.SAWT_BOX, { method: "POST" });\n` +
        `if (!r.ok) { console.error(await r.text()); process.exit(1); }\n`,
    );
    const started = await Promise.all(cluster.boxes.map((b) => metric(b, "process_start_time_seconds", {})));
    const oldPids = cluster.boxes.map((b) => b.process!.proc.pid);

    const load = startLoad({ httpPort: cluster.front.http, grpcTtsPort: cluster.front.grpc_tts, key, maxMs: 100_000 });
    await Bun.sleep(1500);
    const script = Bun.spawn(
      [
        "sh",
        join(ROOT, "installer/rolling-upgrade.sh"),
        "--socket",
        cluster.socket,
        "--upgrade",
        `"${process.execPath}" "${upgradeScript}"`,
        "--sawt",
        `${process.execPath} ${join(ROOT, "src/main.ts")}`,
        "--drain-timeout",
        "30",
        "--ready-timeout",
        "60",
        ...cluster.boxes.map((b) => `${b.name}=${b.url}`),
      ],
      { stdout: "pipe", stderr: "pipe" },
    );
    const timer = setTimeout(() => script.kill("SIGKILL"), 100_000);
    const [stderr, code] = await Promise.all([new Response(script.stderr).text(), script.exited]);
    clearTimeout(timer);
    await Bun.sleep(1500); // load goes on over the last upgraded box
    const outcomes = await load.stop();
    console.info(stderr.trim());

    expect(code).toBe(0);
    expect(stderr).toContain("all 3 boxes upgraded");
    expect(upgraded).toEqual(["box1", "box2", "box3"]);
    const kinds = ["rest", "grpc", "ws"] as const;
    console.info(
      `${outcomes.length} requests during the upgrade: ${kinds.map((k) => `${k} ${outcomes.filter((o) => o.kind === k && o.ok).length}/${outcomes.filter((o) => o.kind === k).length} ok`).join(", ")}`,
    );
    expect(unexplainedFailures(outcomes)).toEqual([]);
    for (const kind of kinds) expect(outcomes.filter((o) => o.kind === kind).length).toBeGreaterThan(5);
    // Every box runs a new process, is UP in every backend and serves again.
    const now = await Promise.all(cluster.boxes.map((b) => metric(b, "process_start_time_seconds", {})));
    now.forEach((t, i) => expect(t).toBeGreaterThan(started[i]!));
    cluster.boxes.forEach((b, i) => expect(b.process!.proc.pid).not.toBe(oldPids[i]));
    for (const box of cluster.boxes) expect(await cluster.serverStatus(box.name)).toEqual(["UP", "UP", "UP"]);
  }, 150_000);
});
