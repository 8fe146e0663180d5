/**
 * Cold start (issue #19, acceptance 4): time from spawning `bun src/main.ts serve` with an empty
 * models directory until `GET /ready` answers 200, beside the same for a bare Elysia app (one
 * route, same Bun) as the floor, and the idle RSS of each once ready. Runs alternate between the
 * two so load drift hits both; medians are reported.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/sawt.ts";
import { median } from "./tts-support.ts";

const RUNS = 9;
const root = join(import.meta.dir, "..", "..");
const dir = tempDir("sawt-bench-cold-");
const bare = join(dir.path, "bare.ts");
await Bun.write(
  bare,
  `import { Elysia } from "${join(root, "node_modules", "elysia")}";\nnew Elysia().get("/ready", () => "ok").listen(Number(process.env.PORT));\n`,
);

let nextPort = 20000 + Math.floor(Math.random() * 20000);

/** Spawns `cmd`, polls /ready on its port, returns ms to the first 200 and the RSS then (MB). */
async function coldStart(
  cmd: (port: number, run: string) => { argv: string[]; env: Record<string, string> },
): Promise<{ ms: number; rssMb: number }> {
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
    return { ms, rssMb: rssKb / 1024 };
  } finally {
    child.kill("SIGKILL");
    await child.exited;
  }
}

const sawt = (port: number, run: string) => ({
  argv: [process.execPath, join(root, "src", "main.ts"), "serve"],
  env: {
    SAWT_HTTP_PORT: String(port),
    SAWT_GRPC_ASR_PORT: "0",
    SAWT_GRPC_TTS_PORT: "0",
    SAWT_DATA_DIR: join(run, "data"),
    SAWT_MODELS_DIR: join(run, "models"),
    SAWT_LOG_LEVEL: "warn",
  },
});
const elysia = (port: number) => ({ argv: [process.execPath, bare], env: { PORT: String(port) } });

const results = { sawt: [] as Array<{ ms: number; rssMb: number }>, bare: [] as Array<{ ms: number; rssMb: number }> };
await coldStart(sawt); // warm the file cache
await coldStart(elysia);
for (let i = 0; i < RUNS; i++) {
  results.sawt.push(await coldStart(sawt));
  results.bare.push(await coldStart(elysia));
}
dir.remove();

const ms = { sawt: median(results.sawt.map((r) => r.ms)), bare: median(results.bare.map((r) => r.ms)) };
const rss = { sawt: median(results.sawt.map((r) => r.rssMb)), bare: median(results.bare.map((r) => r.rssMb)) };
console.log(`## Cold start to /ready (cold-start.bench.ts)

From spawning the process to the first \`GET /ready\` → 200 (polled every 2 ms), no models
installed (TTS ready on the built-in espeak-ng engine), medians of ${RUNS} alternating runs; RSS
read from /proc 0.5 s after ready. The floor is a bare Elysia app with one route on the same Bun.
Goal (issue #19): ≤ 150 ms on this machine.

| process | to /ready (ms) | idle RSS (MB) |
|---|---:|---:|
| sawt serve, no models | ${ms.sawt.toFixed(0)} | ${rss.sawt.toFixed(0)} |
| bare Elysia app | ${ms.bare.toFixed(0)} | ${rss.bare.toFixed(0)} |
| ratio | ${(ms.sawt / ms.bare).toFixed(1)} | ${(rss.sawt / rss.bare).toFixed(1)} |
`);
