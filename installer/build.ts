/**
 * `bun run build`: compiles Sawt into one executable, dist/sawt (or `--outfile PATH`, which the
 * bundle uses). The onnxruntime native library is embedded as a file asset (see
 * src/runtime/ort.ts) so the binary needs no node_modules. The session worker
 * (src/runtime/session-worker.ts) is a second entry point: Bun only embeds worker scripts that are
 * listed as entry points.
 */
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const root = join(import.meta.dir, "..");
const flag = process.argv.indexOf("--outfile");
const outfile = flag >= 0 && process.argv[flag + 1] ? resolve(process.argv[flag + 1]!) : join(root, "dist", "sawt");
mkdirSync(dirname(outfile), { recursive: true });
const proc = Bun.spawnSync(
  [process.execPath, "build", "--compile", "--minify-syntax", "--sourcemap=none", join(root, "src", "main.ts"), join(root, "src", "runtime", "session-worker.ts"), "--outfile", outfile],
  { cwd: root, stdout: "inherit", stderr: "inherit" },
);
if (proc.exitCode !== 0) {
  console.error("sawt build: bun build --compile failed");
  process.exit(proc.exitCode ?? 1);
}
console.error(`sawt build: wrote ${outfile}`);
