/**
 * `bun run reliability`: runs the reliability suite (test/reliability/*.test.ts) at full size —
 * a fuzz campaign of 20,000 REST/WebSocket/gRPC requests and at least 10,000 per door, 10,000
 * cases on each other door (SIP over UDP and TCP, SDP, MRCP, RTP, jobs), 8 kill -9 rounds, a
 * 300 s mixed soak, unless flags say otherwise — collects each test's figures and rewrites
 * docs/reliability.md from them. The recorded 30-minute soak is `--soak-seconds 1800`;
 * `--shared "…"` notes in the page that the machine was busy with other work.
 *
 *   bun run reliability [--fuzz-requests N] [--fuzz-per-door N] [--door-cases N] [--seed N]
 *                       [--soak-seconds N] [--kills N] [--shared TEXT] [--only FILE…]
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
  SAWT_FUZZ_MIN_PER_DOOR: flag("fuzz-per-door", "10000"),
  SAWT_DOOR_CASES: flag("door-cases", "10000"),
  SAWT_FUZZ_SEED: seed,
  SAWT_SOAK_SECONDS: flag("soak-seconds", "300"),
  SAWT_RELIABILITY_KILLS: flag("kills", "8"),
};
// Generous: the soak itself, and the fuzz at 10,000 cases per door on a shared two-core machine.
const timeoutMs = (Number(settings.SAWT_SOAK_SECONDS) + 3600) * 1000;
// `--only fuzz.test.ts soak.test.ts` runs part of the suite (the page keeps what did not run as
// "not measured").
const only = process.argv.includes("--only") ? process.argv.slice(process.argv.indexOf("--only") + 1) : [];
const paths = only.length > 0 ? only.map((f) => join("test", "reliability", f)) : [join("test", "reliability")];
const proc = Bun.spawn([process.execPath, "test", "--timeout", String(timeoutMs), ...paths], {
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
const shared = flag("shared", "");
const doc = renderReliabilityDoc(figures, {
  date: new Date().toISOString(),
  machine,
  settings,
  passed: code === 0,
  ...(shared ? { shared } : {}),
});
await Bun.write(join(root, "docs", "reliability.md"), doc);
console.log(`docs/reliability.md rewritten (suite exit code ${code})`);
process.exit(code);
