/**
 * `bun run interop`: the MRCPv2 interoperability suite against peers from the registries, run
 * after `npm test` by .ci/run: SIPp (Debian's sip-tester) on the SIP side, the npm `mrcp` client on
 * the control channel, ffmpeg (Debian's) as RTP sender and recorder, and Kamailio in front of two
 * boxes. `npm test`'s setup installs them (installer/dev-setup.sh --test); a missing peer is a
 * failure with a one-line reason, never a skip. The suite's files (test/interop/*.interop.ts,
 * which plain `bun test` does not pick up) run through test/run.ts, so the last line is the same
 * `N passed, N failed`.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";

const missing = [
  ["sipp", "sip-tester"],
  ["ffmpeg", "ffmpeg"],
].filter(([command]) => !Bun.which(command!));
if (missing.length > 0) {
  const names = missing.map(([command, pkg]) => `${command} (apt-get install ${pkg})`).join(", ");
  console.error(`interop: FAILED: missing peers: ${names}; run installer/dev-setup.sh --test`);
  process.exit(1);
}

const files = readdirSync(import.meta.dir)
  .filter((name) => name.endsWith(".interop.ts"))
  .map((name) => `./${join("test", "interop", name)}`);
const proc = Bun.spawn([process.execPath, join(import.meta.dir, "..", "run.ts"), ...files], {
  cwd: join(import.meta.dir, "..", ".."),
  stdout: "inherit",
  stderr: "inherit",
});
process.exit(await proc.exited);
