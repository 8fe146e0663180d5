/**
 * A real Sawt cluster for tests: N `sawt serve` processes on 127.0.0.1 with their own data dirs,
 * and Debian's HAProxy started from deploy/haproxy/ (render.sh) in front of them, on ports the
 * test picks. Everything started here is stopped by {@link Cluster.stop} (call it in afterAll).
 */
import { expect } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { ROOT, runCli, startSawt, tempDir, type SawtProcess } from "../support/sawt.ts";

/** The cluster secret every test box shares (test value, 40 characters). */
export const TEST_SECRET = "test-cluster-secret-0123456789abcdefghij";

/** Path of Debian's haproxy; a missing one is a broken setup (`npm test` installs it), so this throws. */
export function haproxyBinary(): string {
  const path = ["/usr/sbin/haproxy", "/usr/bin/haproxy"].find((p) => existsSync(p)) ?? Bun.which("haproxy");
  if (!path) throw new Error("haproxy is not installed: run installer/dev-setup.sh --test (apt-get install haproxy)");
  return path;
}

/** Free TCP ports on 127.0.0.1 (bound together so they differ, then released). */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = createServer();
      await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
      servers.push(server);
    }
    return servers.map((s) => (s.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  }
}

/** One box's ports. */
export interface BoxPorts {
  readonly http: number;
  readonly grpc_asr: number;
  readonly grpc_tts: number;
}

/** A Sawt box of the cluster. */
export interface Box {
  readonly name: string;
  readonly ports: BoxPorts;
  readonly dataDir: string;
  readonly env: Record<string, string>;
  readonly url: string;
  /** The running process (replaced on restart). */
  process: SawtProcess | undefined;
}

/** Settings every box of a test cluster gets. */
export function boxEnv(ports: BoxPorts, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    SAWT_HOST: "127.0.0.1",
    SAWT_HTTP_PORT: String(ports.http),
    SAWT_GRPC_ASR_PORT: String(ports.grpc_asr),
    SAWT_GRPC_TTS_PORT: String(ports.grpc_tts),
    SAWT_DATA_DIR: dataDir,
    SAWT_CLUSTER_SECRET: TEST_SECRET,
    SAWT_DRAIN_GRACE_MS: "3000",
    SAWT_RUNTIME_METRICS_OPEN: "true",
    SAWT_LOG_LEVEL: "info",
    ...extra,
  };
}

/** The HAProxy runtime API: sends one command on the stats socket and returns the answer. */
export function runtimeApi(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`runtime API ${command}: no answer`)), 5000);
    Bun.connect({
      unix: socket,
      socket: {
        open: (s) => void s.write(`${command}\n`),
        data: (_s, data) => void (out += Buffer.from(data).toString("utf8")),
        close: () => {
          clearTimeout(timer);
          resolve(out);
        },
        error: (_s, error) => {
          clearTimeout(timer);
          reject(error);
        },
      },
    }).catch(reject);
  });
}

/** `show stat` as rows keyed by column name. */
export async function showStat(socket: string): Promise<Record<string, string>[]> {
  const text = await runtimeApi(socket, "show stat");
  const [header, ...lines] = text.split("\n").filter((l) => l.trim().length > 0);
  const columns = header!.replace(/^# /, "").split(",");
  return lines.map((line) => Object.fromEntries(line.split(",").map((v, i) => [columns[i], v])));
}

/** The backends deploy/haproxy/haproxy.cfg.in defines. */
export const BACKENDS = ["sawt_http_boxes", "sawt_grpc_asr_boxes", "sawt_grpc_tts_boxes"] as const;

/** A running cluster. */
export interface Cluster {
  readonly dir: string;
  readonly boxes: Box[];
  readonly front: BoxPorts;
  readonly socket: string;
  readonly rpmMap: string;
  readonly haproxyLogs: string[];
  /** Status of a box in each backend (`UP`, `DOWN`, `DRAIN`, `MAINT`, …). */
  serverStatus(name: string): Promise<string[]>;
  /** Waits until every named box is UP in every backend. */
  waitUp(names: readonly string[], timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Starts one box with `sawt serve` on its fixed ports. */
export async function startBox(box: Box): Promise<SawtProcess> {
  box.process = await startSawt({ env: box.env, dataDir: box.dataDir });
  return box.process;
}

/** Renders deploy/haproxy/haproxy.cfg.in for the boxes, on the given front ports. */
export async function renderConfig(options: {
  front: BoxPorts;
  socket: string;
  rpmMap: string;
  boxes: readonly Box[];
}): Promise<string> {
  const { front } = options;
  const args = [
    "sh",
    join(ROOT, "deploy/haproxy/render.sh"),
    "--foreground",
    "--http-bind",
    `127.0.0.1:${front.http}`,
    "--grpc-asr-bind",
    `127.0.0.1:${front.grpc_asr}`,
    "--grpc-tts-bind",
    `127.0.0.1:${front.grpc_tts}`,
    "--socket",
    options.socket,
    "--rpm-map",
    options.rpmMap,
    ...options.boxes.map((b) => `${b.name}=127.0.0.1:${b.ports.http}:${b.ports.grpc_asr}:${b.ports.grpc_tts}`),
  ];
  const proc = Bun.spawnSync(args, { stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`render.sh failed: ${proc.stderr.toString()}`);
  return proc.stdout.toString();
}

/**
 * Starts `count` boxes, then (after `prepare` ran, e.g. to share keys and write the rpm map)
 * HAProxy in front of them; resolves once every box is UP in every backend.
 */
export async function startCluster(
  haproxy: string,
  options: {
    count: number;
    boxEnv?: Record<string, string>;
    prepare?: (cluster: Omit<Cluster, "stop" | "serverStatus" | "waitUp">) => Promise<void>;
  },
): Promise<Cluster> {
  const temp = tempDir("sawt-cluster-");
  const ports = await freePorts(3 + options.count * 3);
  const front = { http: ports[0]!, grpc_asr: ports[1]!, grpc_tts: ports[2]! };
  const boxes: Box[] = [];
  for (let i = 0; i < options.count; i++) {
    const boxPorts = { http: ports[3 + i * 3]!, grpc_asr: ports[4 + i * 3]!, grpc_tts: ports[5 + i * 3]! };
    const dataDir = join(temp.path, `box${i + 1}`);
    mkdirSync(dataDir, { recursive: true });
    // The box's name is its jobs.box_id, which the balancer routes a job's URLs by.
    const env = boxEnv(boxPorts, dataDir, { SAWT_JOBS_BOX_ID: `box${i + 1}`, ...options.boxEnv });
    boxes.push({
      name: `box${i + 1}`,
      ports: boxPorts,
      dataDir,
      env,
      url: `http://127.0.0.1:${boxPorts.http}`,
      process: undefined,
    });
  }
  const socket = join(temp.path, "haproxy.sock");
  const rpmMap = join(temp.path, "sawt-rpm.map");
  writeFileSync(rpmMap, "");
  const haproxyLogs: string[] = [];
  let proc: ReturnType<typeof Bun.spawn> | undefined;
  const stop = async () => {
    if (proc && proc.exitCode === null) {
      proc.kill("SIGTERM");
      await Promise.race([proc.exited, Bun.sleep(5000)]);
      if (proc.exitCode === null) proc.kill("SIGKILL");
    }
    await Promise.all(
      boxes.map((b) => (b.process && b.process.proc.exitCode === null ? b.process.stop("SIGKILL") : undefined)),
    );
    temp.remove();
  };
  try {
    await Promise.all(boxes.map(startBox));
    const partial = { dir: temp.path, boxes, front, socket, rpmMap, haproxyLogs };
    await options.prepare?.(partial);
    const cfg = join(temp.path, "haproxy.cfg");
    writeFileSync(cfg, await renderConfig({ front, socket, rpmMap, boxes }));
    proc = Bun.spawn([haproxy, "-f", cfg, "-db"], { stdout: "pipe", stderr: "pipe" });
    for (const stream of [proc.stdout, proc.stderr] as ReadableStream<Uint8Array>[]) {
      void (async () => {
        const decoder = new TextDecoder();
        for await (const chunk of stream) haproxyLogs.push(...decoder.decode(chunk).split("\n").filter(Boolean));
      })();
    }
    const serverStatus = async (name: string) => {
      const rows = await showStat(socket);
      return BACKENDS.map((be) => rows.find((r) => r.pxname === be && r.svname === name)?.status ?? "missing");
    };
    const waitUp = async (names: readonly string[], timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (proc!.exitCode !== null) throw new Error(`haproxy exited:\n${haproxyLogs.join("\n")}`);
        const states = existsSync(socket) ? await Promise.all(names.map(serverStatus)).catch(() => [["?"]]) : [["?"]];
        if (states.every((s) => s.every((v) => v === "UP"))) return;
        if (Date.now() > deadline)
          throw new Error(`boxes not UP in HAProxy: ${JSON.stringify(states)}\n${haproxyLogs.join("\n")}`);
        await Bun.sleep(100);
      }
    };
    await waitUp(boxes.map((b) => b.name));
    return { ...partial, serverStatus, waitUp, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Creates an unthrottled key on box 1, exports it (with the balancer's rpm map) and imports it on
 * every other box, as an operator shares keys across a cluster; returns the key.
 */
export async function shareLoadKey(c: Pick<Cluster, "boxes" | "dir" | "rpmMap">): Promise<string> {
  const created = await boxCli(c.boxes[0]!, ["keys", "create", "--name", "load", "--rpm", "100000", "--json"]);
  const file = join(c.dir, "keys.json");
  expect((await boxCli(c.boxes[0]!, ["keys", "export", "--out", file, "--haproxy-map", c.rpmMap])).code).toBe(0);
  for (const box of c.boxes.slice(1)) expect((await boxCli(box, ["keys", "import", file])).code).toBe(0);
  return JSON.parse(created.stdout).key as string;
}

/** Runs the CLI against one box's data dir and config env. */
export function boxCli(box: Box, args: readonly string[], stdin?: string) {
  return runCli(args, { env: box.env, stdin });
}

/** Reads one counter's value from a box's /metrics (0 when absent). */
export async function metric(box: Box, name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`${box.url}/metrics`)).text();
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text
    .split("\n")
    .find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && wanted.every((w) => l.includes(w)));
  return line ? Number(line.split(" ").pop()) : 0;
}
