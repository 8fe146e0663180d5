/**
 * `bun run build`: compiles Sawt into one executable, dist/sawt (or `--outfile PATH`, which the
 * bundle uses). The onnxruntime native library is embedded as a file asset (see
 * src/onnx/ort.ts) so the binary needs no node_modules. The session worker
 * (src/onnx/session-worker.ts) and the espeak worker (src/tts/espeak/espeak-worker.ts) are
 * further entry points: Bun only embeds worker scripts that are listed as entry points, under
 * their path relative to the entries' common root (src/).
 *
 * `--bytecode` stores JavaScriptCore bytecode beside the source of every entry, so a start skips
 * parsing and compiling the ~800 bundled modules (cold start to /ready, issue #19); it needs ESM
 * output here because main.ts awaits at top level (Bun's default with --bytecode is CommonJS).
 * The built-in recogniser (Moonshine tiny English, issue #32) is fetched from the npm registry by
 * pinned version and SHA-256 into the build-time folder `.cache/builtin-asr/` (installer/
 * builtin-asr.ts; never committed) and embedded whole with `--asset`, so the binary carries it and
 * never downloads at run time (src/asr/builtin/locate.ts finds it under /$bunfs/root/builtin-asr/).
 *
 * `--splitting` puts what is only imported dynamically (the other CLI commands, the docs plugin,
 * the gRPC schemas) in chunks of their own, so `sawt serve` does not load their code at all.
 */
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { BUILTIN_ASR_DIR, ensureBuiltinAsr } from "./builtin-asr.ts";
import { COMPILE_FLAGS } from "./compile-flags.ts";

const root = join(import.meta.dir, "..");
const flag = process.argv.indexOf("--outfile");
const outfile = flag >= 0 && process.argv[flag + 1] ? resolve(process.argv[flag + 1]!) : join(root, "dist", "sawt");
mkdirSync(dirname(outfile), { recursive: true });
ensureBuiltinAsr();
const proc = Bun.spawnSync(
  [
    process.execPath,
    "build",
    ...COMPILE_FLAGS,
    "--splitting",
    "--sourcemap=none",
    join(root, "src", "main.ts"),
    join(root, "src", "onnx", "session-worker.ts"),
    join(root, "src", "tts", "espeak", "espeak-worker.ts"),
    "--asset",
    BUILTIN_ASR_DIR,
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
