/**
 * `bun run reliability`: runs the reliability suite (test/reliability/*.test.ts) at full size —
 * a 20,000-request fuzz campaign, 8 kill -9 rounds, a 300 s soak, unless flags say otherwise —
 * collects each test's figures and rewrites docs/reliability.md from them.
 *
 *   bun run reliability [--fuzz-requests N] [--seed N] [--soak-seconds N] [--kills N]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { renderReliabilityDoc } from "./report.ts";

const root = join(import.meta.dir, "..", "..");
const flag = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1]! : fallback;
};
const out = mkdtempSync(join(tmpdir(), "sawt-reliability-"));
const seed = flag("seed", String(Math.floor(Math.random() * 2 ** 31)));
const settings = {
  SAWT_RELIABILITY_OUT: out,
  SAWT_FUZZ_REQUESTS: flag("fuzz-requests", "20000"),
  SAWT_FUZZ_SEED: seed,
  SAWT_SOAK_SECONDS: flag("soak-seconds", "300"),
  SAWT_RELIABILITY_KILLS: flag("kills", "8"),
};
const timeoutMs = (Number(settings.SAWT_SOAK_SECONDS) + 600) * 1000;
const proc = Bun.spawn([process.execPath, "test", "--timeout", String(timeoutMs), join("test", "reliability")], {
  cwd: root,
  stdout: "inherit",
  stderr: "inherit",
  env: { ...process.env, ...settings },
});
const code = await proc.exited;
const figures: Record<string, unknown> = {};
for (const name of readdirSync(out))
  figures[name.replace(/\.json$/, "")] = JSON.parse(readFileSync(join(out, name), "utf8"));
rmSync(out, { recursive: true, force: true });
const machine = `${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Bun ${Bun.version}`;
const doc = renderReliabilityDoc(figures, { date: new Date().toISOString(), machine, settings, passed: code === 0 });
await Bun.write(join(root, "docs", "reliability.md"), doc);
console.log(`docs/reliability.md rewritten (suite exit code ${code})`);
process.exit(code);
