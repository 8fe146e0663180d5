/**
 * `bun run reliability`: runs the reliability suite (test/reliability/*.test.ts) at full size —
 * a fuzz campaign of 20,000 REST/WebSocket/gRPC requests and at least 10,000 per door, 10,000
 * cases on each other door (SIP over UDP and TCP, SDP, MRCP, RTP, jobs), 8 kill -9 rounds, a
 * 300 s mixed soak, unless flags say otherwise — collects each test's figures and rewrites
 * docs/reliability.md from them. The recorded 30-minute soak is `--soak-seconds 1800`;
 * `--shared "…"` notes in the page that the machine was busy with other work.
 *
 * `--save DIR` keeps this run's figures (and its date and settings, DIR/run.json); `--keep DIR`
 * starts from such a run's figures, so that `--only` can re-run part of the suite (say, all but
 * a 30-minute soak) and the page still has every section, each saying which run it comes from.
 *
 *   bun run reliability [--fuzz-requests N] [--fuzz-per-door N] [--door-cases N] [--seed N]
 *                       [--soak-seconds N] [--kills N] [--shared TEXT] [--save DIR] [--keep DIR]
 *                       [--only FILE…]   (--only last: it takes the rest of the arguments)
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
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
/** `<name>.json` figures of a folder (run.json, a run's facts, apart). */
const read = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .filter((name) => name.endsWith(".json") && name !== "run.json")
      .map((name) => [name.replace(/\.json$/, ""), JSON.parse(readFileSync(join(dir, name), "utf8"))]),
  );
const fresh = read(out);
const keepDir = flag("keep", "");
const kept: Record<string, unknown> = keepDir ? read(keepDir) : {};
for (const name of Object.keys(fresh)) delete kept[name];
const figures: Record<string, unknown> = { ...kept, ...fresh };
const keptRun =
  keepDir && existsSync(join(keepDir, "run.json"))
    ? JSON.parse(readFileSync(join(keepDir, "run.json"), "utf8"))
    : undefined;
const date = new Date().toISOString();
const machine = `${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Bun ${Bun.version}`;
const shared = flag("shared", "");
const doc = renderReliabilityDoc(figures, {
  date,
  machine,
  settings,
  passed: code === 0,
  ...(shared ? { shared } : {}),
  ...(Object.keys(kept).length > 0
    ? {
        kept: {
          sections: Object.keys(kept),
          date: keptRun?.date ?? "an earlier run",
          settings: keptRun?.settings ?? {},
        },
      }
    : {}),
});
const saveDir = flag("save", "");
if (saveDir) {
  mkdirSync(saveDir, { recursive: true });
  cpSync(out, saveDir, { recursive: true });
  await Bun.write(join(saveDir, "run.json"), JSON.stringify({ date, settings, passed: code === 0 }, null, 2));
}
rmSync(out, { recursive: true, force: true });
await Bun.write(join(root, "docs", "reliability.md"), doc);
console.log(`docs/reliability.md rewritten (suite exit code ${code})`);
process.exit(code);
