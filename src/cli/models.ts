/** `sawt models list|verify`: what is installed and whether its files are intact. */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../config/config.ts";
import { describeModels, type CatalogEntry } from "../models/catalog.ts";
import { parseArgs, stringFlag, UsageError } from "./args.ts";
import type { Command } from "./command.ts";

const flags = { config: "value", json: "boolean" } as const;

async function sha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of Bun.file(path).stream()) hash.update(chunk);
  return hash.digest("hex");
}

/** Verifies a pack's files against its SHA256SUMS (when present); returns problems found. */
async function verifyPack(pack: CatalogEntry): Promise<{ checked: number; problems: string[]; sums: Record<string, string> }> {
  const sums: Record<string, string> = {};
  for (const file of pack.files) if (file !== "SHA256SUMS") sums[file] = await sha256(join(pack.dir, file));
  const problems = [...pack.problems];
  const listPath = join(pack.dir, "SHA256SUMS");
  let checked = 0;
  if (existsSync(listPath)) {
    for (const line of readFileSync(listPath, "utf8").split("\n")) {
      const match = /^([0-9a-f]{64})\s+\*?(.+)$/.exec(line.trim());
      if (!match) continue;
      checked++;
      const [, expected, file] = match;
      if (!(file! in sums)) problems.push(`${file} listed in SHA256SUMS is missing`);
      else if (sums[file!] !== expected) problems.push(`${file} checksum mismatch`);
    }
  }
  return { checked, problems, sums };
}

/** The models command. */
export const modelsCommand: Command = {
  name: "models",
  summary: "list installed model packs, verify their checksums",
  usage: `Usage:
  sawt models list [--json]
  sawt models verify [--json]

list    shows each pack folder under paths.models_dir and what it serves, as the engines see it.
verify  computes SHA-256 of every file, checks it against the pack's SHA256SUMS when it has one,
        and reports file-level problems. Exit 1 when any pack has a problem.`,
  flags,
  async run(argv) {
    const args = parseArgs(argv, flags);
    const config = loadConfig({ file: stringFlag(args, "config") });
    const packs = describeModels(config.paths.models_dir);
    const action = args.positional[0];
    if (action === "list") {
      if (args.flags.json) process.stdout.write(JSON.stringify({ models_dir: config.paths.models_dir, packs }) + "\n");
      else {
        process.stdout.write(`models dir: ${config.paths.models_dir}\n`);
        if (packs.length === 0) process.stdout.write("no packs installed: TTS speaks with the built-in espeak-ng engine; ASR needs a pack\n");
        for (const p of packs) process.stdout.write(`${p.name}\t${p.serves ?? "-"}\t${p.files.join(", ")}${p.problems.length ? `\tPROBLEM: ${p.problems.join("; ")}` : ""}\n`);
      }
      return 0;
    }
    if (action === "verify") {
      const results = [];
      for (const pack of packs) results.push({ name: pack.name, serves: pack.serves ?? null, ...(await verifyPack(pack)) });
      const bad = results.filter((r) => r.problems.length > 0);
      if (args.flags.json) process.stdout.write(JSON.stringify({ ok: bad.length === 0, packs: results }) + "\n");
      else {
        for (const r of results) {
          process.stdout.write(`${r.problems.length ? "FAIL" : "ok  "}  ${r.name} (${r.serves ?? "unrecognised"}): ${Object.keys(r.sums).length} files, ${r.checked} checked against SHA256SUMS${r.problems.length ? ` — ${r.problems.join("; ")}` : ""}\n`);
        }
      }
      return bad.length === 0 ? 0 : 1;
    }
    throw new UsageError(action ? `unknown models action ${JSON.stringify(action)}` : "models needs an action: list or verify");
  },
};
