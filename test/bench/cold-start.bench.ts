/**
 * Cold start (issue #19, acceptance 4): time from spawning `sawt serve` with an empty models
 * directory until `GET /ready` answers 200, and the idle RSS once ready, for what ships (the
 * compiled binary, built once here exactly as `bun run build` builds it) and for a run from
 * source. Each has its floor beside it: a bare Elysia app with one route, run the same way (from
 * source; compiled with the build's flags). Runs alternate between the four so load drift hits
 * all of them; medians are reported.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { COMPILE_FLAGS } from "../../installer/compile-flags.ts";
import { tempDir } from "../support/sawt.ts";
import { median } from "./tts-support.ts";

const RUNS = 11;
const root = join(import.meta.dir, "..", "..");
const dir = tempDir("sawt-bench-cold-");
const sawtBinary = join(dir.path, "sawt");
const bareSource = join(dir.path, "bare.ts");
const bareBinary = join(dir.path, "bare");

function run(argv: string[]): void {
  const proc = Bun.spawnSync(argv, { cwd: root, stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`${argv.join(" ")} failed: ${proc.stderr.toString()}`);
}

run([process.execPath, join(root, "installer", "build.ts"), "--outfile", sawtBinary]);
await Bun.write(
  bareSource,
  `import { Elysia } from "${join(root, "node_modules", "elysia")}";\nnew Elysia().get("/ready", () => "ok").listen(Number(process.env.PORT));\n`,
);
// The flags installer/build.ts compiles Sawt with, so the floor starts the way the binary does.
run([process.execPath, "build", ...COMPILE_FLAGS, bareSource, "--outfile", bareBinary]);

let nextPort = 20000 + Math.floor(Math.random() * 20000);

interface Start {
  readonly ms: number;
  readonly rssMb: number;
}

/** Spawns `cmd`, polls /ready on its port, returns ms to the first 200 and the RSS then (MB). */
async function coldStart(cmd: (port: number, run: string) => { argv: string[]; env: Record<string, string> }) {
  const port = nextPort++;
  const run = join(dir.path, `run-${port}`);
  mkdirSync(join(run, "models"), { recursive: true });
  const { argv, env } = cmd(port, run);
  const started = performance.now();
  const child = Bun.spawn(argv, { cwd: root, env: { ...process.env, ...env }, stdout: "ignore", stderr: "ignore" });
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/ready`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      if (performance.now() - started > 30_000) throw new Error(`${argv.join(" ")} never became ready`);
      await Bun.sleep(2);
    }
    const ms = performance.now() - started;
    await Bun.sleep(500); // idle: let start-up garbage settle
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
    return { ms, rssMb: rssKb / 1024 } satisfies Start;
  } finally {
    child.kill("SIGKILL");
    await child.exited;
  }
}

const sawtEnv = (port: number, run: string) => ({
  SAWT_HTTP_PORT: String(port),
  SAWT_GRPC_ASR_PORT: "0",
  SAWT_GRPC_TTS_PORT: "0",
  SAWT_DATA_DIR: join(run, "data"),
  SAWT_MODELS_DIR: join(run, "models"),
  SAWT_LOG_LEVEL: "warn",
});
const processes = {
  binary: (port: number, run: string) => ({ argv: [sawtBinary, "serve"], env: sawtEnv(port, run) }),
  bareBinary: (port: number) => ({ argv: [bareBinary], env: { PORT: String(port) } }),
  source: (port: number, run: string) => ({
    argv: [process.execPath, join(root, "src", "main.ts"), "serve"],
    env: sawtEnv(port, run),
  }),
  bareSource: (port: number) => ({ argv: [process.execPath, bareSource], env: { PORT: String(port) } }),
};
type Name = keyof typeof processes;
const names = Object.keys(processes) as Name[];

// The first start of each warms the file cache (and lets the binary write out its onnxruntime copy).
for (const name of names) await coldStart(processes[name]);
const results = Object.fromEntries(names.map((name) => [name, [] as Start[]])) as Record<Name, Start[]>;
for (let i = 0; i < RUNS; i++) for (const name of names) results[name].push(await coldStart(processes[name]));
dir.remove();

const ms = (name: Name) => median(results[name].map((r) => r.ms));
const rss = (name: Name) => median(results[name].map((r) => r.rssMb));
const row = (label: string, name: Name, floor: Name) =>
  `| ${label} | ${ms(name).toFixed(0)} | ${(ms(name) / ms(floor)).toFixed(1)} | ` +
  `${rss(name).toFixed(0)} | ${(rss(name) / rss(floor)).toFixed(1)} |`;

console.log(`## Cold start to /ready (cold-start.bench.ts)

From spawning the process to the first \`GET /ready\` → 200 (polled every 2 ms), no models
installed (TTS ready on the built-in espeak-ng engine; ASR, without a pack, is disabled), medians
of ${RUNS} alternating runs; RSS read from /proc 0.5 s after ready. Each row's floor is a bare
Elysia app with one route started the same way. What no first request needs loads on first use
and is not in these numbers: the built-in tashkeel session (~50 MB, 0.1–0.2 s, paid by the first
Arabic text for espeak-ng), the gRPC codecs (paid by the first gRPC call), the docs plugin.

The goal (issue #19: ≤ 150 ms on this machine) is read on the first row, the compiled binary:
that is what ships (\`bun run build\`, the bundle, the .deb) and what systemd starts. A run from
source pays Bun's TypeScript transpiling of ~800 modules on every start (the bare app's own floor
from source is already most of the budget); it is shown for development.

| process | to /ready (ms) | × its floor | idle RSS (MB) | × its floor |
|---|---:|---:|---:|---:|
${row("sawt serve, compiled binary (ships)", "binary", "bareBinary")}
| bare Elysia app, compiled alike | ${ms("bareBinary").toFixed(0)} | 1.0 | ${rss("bareBinary").toFixed(0)} | 1.0 |
${row("sawt serve, from source", "source", "bareSource")}
| bare Elysia app, from source | ${ms("bareSource").toFixed(0)} | 1.0 | ${rss("bareSource").toFixed(0)} | 1.0 |
`);
