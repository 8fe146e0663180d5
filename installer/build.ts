/**
 * `bun run build`: compiles Sawt into one executable, dist/sawt (or `--outfile PATH`, which the
 * bundle uses). The onnxruntime native library is embedded as a file asset (see
 * src/runtime/ort.ts) so the binary needs no node_modules. The session worker
 * (src/runtime/session-worker.ts) and the espeak worker (src/tts/espeak/espeak-worker.ts) are
 * further entry points: Bun only embeds worker scripts that are listed as entry points, under
 * their path relative to the entries' common root (src/).
 *
 * `--bytecode` stores JavaScriptCore bytecode beside the source of every entry, so a start skips
 * parsing and compiling the ~800 bundled modules (cold start to /ready, issue #19); it needs ESM
 * output here because main.ts awaits at top level (Bun's default with --bytecode is CommonJS).
 * `--splitting` puts what is only imported dynamically (the other CLI commands, the docs plugin,
 * the gRPC schemas) in chunks of their own, so `sawt serve` does not load their code at all.
 */
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { COMPILE_FLAGS } from "./compile-flags.ts";

const root = join(import.meta.dir, "..");
const flag = process.argv.indexOf("--outfile");
const outfile = flag >= 0 && process.argv[flag + 1] ? resolve(process.argv[flag + 1]!) : join(root, "dist", "sawt");
mkdirSync(dirname(outfile), { recursive: true });
const proc = Bun.spawnSync(
  [
    process.execPath,
    "build",
    ...COMPILE_FLAGS,
    "--splitting",
    "--sourcemap=none",
    join(root, "src", "main.ts"),
    join(root, "src", "runtime", "session-worker.ts"),
    join(root, "src", "tts", "espeak", "espeak-worker.ts"),
    "--outfile",
    outfile,
  ],
  { cwd: root, stdout: "inherit", stderr: "inherit" },
);
if (proc.exitCode !== 0) {
  console.error("sawt build: bun build --compile failed");
  process.exit(proc.exitCode ?? 1);
}
console.error(`sawt build: wrote ${outfile}`);
