/** `sawt doctor`: looks at everything an install needs and says how to fix what is wrong. */
import "../app/families.ts";
import { loadConfig } from "../config/config.ts";
import { DOCTOR_CHECKS, type CheckResult } from "../doctor/checks.ts";
import { VERSION } from "../version.ts";
import { parseArgs, stringFlag } from "./args.ts";
import type { Command } from "./command.ts";

const flags = { config: "value", json: "boolean" } as const;

/** The doctor command. */
export const doctorCommand: Command = {
  name: "doctor",
  usage: `Usage: sawt doctor [--json] [--config FILE]

Runs every install check and prints what it found, with a fix for each problem. Opens a real
onnxruntime session to prove the runtime loads. Exit 0 when nothing failed (warnings allowed),
1 otherwise. --json prints {"version","ok","checks":[{name,status,detail,fix,data}]}.`,
  flags,
  async run(argv) {
    const args = parseArgs(argv, flags);
    const config = loadConfig({ file: stringFlag(args, "config") });
    const checks: CheckResult[] = [];
    for (const check of DOCTOR_CHECKS) checks.push(await check(config));
    const ok = checks.every((c) => c.status !== "fail");
    if (args.flags.json) {
      process.stdout.write(JSON.stringify({ version: VERSION, ok, checks }, null, 2) + "\n");
    } else {
      for (const c of checks) {
        process.stdout.write(
          `${c.status === "ok" ? "ok  " : c.status === "warn" ? "WARN" : "FAIL"}  ${c.name.padEnd(12)} ${c.detail}\n`,
        );
        if (c.fix) process.stdout.write(`      ${"".padEnd(12)} fix: ${c.fix}\n`);
      }
    }
    return ok ? 0 : 1;
  },
};
