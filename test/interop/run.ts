/**
 * `bun run interop`: the interoperability suite, against peers no package registry carries, run
 * after `npm test` by .ci/run. Today the peer is UniMRCP 1.8.0's client (umc, asrclient), whose
 * source and build script are in `../shared/tools/unimrcp/` beside the checkout; it is built once
 * per machine into `${XDG_CACHE_HOME:-~/.cache}/unimrcp-1.8.0` (outside the repository) and the
 * suite's files (test/interop/*.interop.ts, which plain `bun test` does not pick up) run through
 * test/run.ts, so the last line is the same `N passed, N failed`. A missing peer is a failure
 * with a one-line reason, never a skip.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { sharedIfPresent } from "../support/sawt.ts";

const fail = (reason: string): never => {
  console.error(`interop: FAILED: ${reason}`);
  process.exit(1);
};

const build = sharedIfPresent("tools/unimrcp/build.sh");
if (build === undefined)
  fail("../shared/tools/unimrcp is missing beside the checkout: UniMRCP's client (umc, asrclient) cannot be built");

// build.sh apt-installs what it needs, builds (~35 s) and prints the prefix; later runs only print it.
console.error("interop: building UniMRCP's client tools (once per machine) ...");
const built = Bun.spawnSync(["sh", build as string], { stdout: "pipe", stderr: "pipe" });
const prefix = built.stdout.toString().trim().split("\n").at(-1) ?? "";
if (built.exitCode !== 0 || prefix === "") {
  const why = built.stderr.toString().trim().split("\n").at(-1) ?? `exit code ${built.exitCode}`;
  fail(`${build} could not build UniMRCP: ${why}`);
}

const files = readdirSync(import.meta.dir)
  .filter((name) => name.endsWith(".interop.ts"))
  .map((name) => `./${join("test", "interop", name)}`);
const proc = Bun.spawn([process.execPath, join(import.meta.dir, "..", "run.ts"), ...files], {
  cwd: join(import.meta.dir, "..", ".."),
  stdout: "inherit",
  stderr: "inherit",
  env: { ...process.env, SAWT_UNIMRCP_PREFIX: prefix },
});
process.exit(await proc.exited);
