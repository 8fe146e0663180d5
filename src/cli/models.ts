/** `sawt models list|verify`: what is installed and whether its files are intact. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import "../app/families.ts";
import { loadConfig } from "../config/config.ts";
import { describeModels, type CatalogEntry } from "../models/catalog.ts";
import { sha256File } from "../models/checksums.ts";
import { parseArgs, stringFlag, UsageError } from "./args.ts";
import type { Command } from "./command.ts";
import { installFlags, runInstall, runRemove } from "./models-install.ts";

const flags = { config: "value", json: "boolean", ...installFlags } as const;

/** Verifies a pack's files against its SHA256SUMS (when present); returns problems found. */
async function verifyPack(
  pack: CatalogEntry,
): Promise<{ checked: number; problems: string[]; sums: Record<string, string> }> {
  const sums: Record<string, string> = {};
  for (const file of pack.files) if (file !== "SHA256SUMS") sums[file] = await sha256File(join(pack.dir, file));
  const listed = (file: string) => {
    // A file in a subfolder (test_wavs/ of a sherpa-onnx pack) is hashed when SHA256SUMS names it.
    if (!(file in sums) && !file.split("/").includes("..") && existsSync(join(pack.dir, file)))
      return sha256File(join(pack.dir, file));
    return Promise.resolve(sums[file]);
  };
  const problems = [...pack.problems];
  const listPath = join(pack.dir, "SHA256SUMS");
  let checked = 0;
  if (existsSync(listPath)) {
    for (const line of readFileSync(listPath, "utf8").split("\n")) {
      const match = /^([0-9a-f]{64})\s+\*?(.+)$/.exec(line.trim());
      if (!match) continue;
      checked++;
      const [, expected, file] = match;
      const actual = await listed(file!);
      if (actual === undefined) problems.push(`${file} listed in SHA256SUMS is missing`);
      else if (actual !== expected) problems.push(`${file} checksum mismatch`);
    }
  }
  return { checked, problems, sums };
}

/** The models command. */
export const modelsCommand: Command = {
  name: "models",
  usage: `Usage:
  sawt models install PATH... [--as NAME] [--admin-key KEY] [--url URL] [--no-reload] [--json]
  sawt models remove NAME... [--admin-key KEY] [--url URL] [--no-reload]
  sawt models list [--json]
  sawt models verify [--json]

install  takes a pack as its publisher publishes it: a .tar.bz2, .tar.gz or .zip archive (one
         top folder or files at its root), a folder, or a Piper VOICE.onnx with VOICE.onnx.json
         beside it. Recognises its family (the engines' registry), validates it (metadata,
         inputs/outputs, one warm-up run) and moves it into paths.models_dir with a SHA256SUMS,
         atomically; refuses archives with links, devices, paths outside their folder, or more
         than 8 GiB / 20,000 entries / 100:1 compression. --as NAME names the folder; a voice
         pack's name is the voice it serves (--as yara). Then the running service reloads through
         POST /v1/admin/models/reload with the admin key from --admin-key or $SAWT_ADMIN_KEY
         (--url overrides http://<server.host>:<server.http_port>); without one, SIGHUP
         (systemctl kill --kill-whom=main -s HUP sawt) or the next start picks it up. Exit 1 when any PATH is refused.
remove   deletes a pack folder (atomically) and reloads the same way.
list     shows each pack folder under paths.models_dir and what it serves, as the engines see
         it; --json adds family, size_bytes, and the provider and warm-up time install measured.
verify   computes SHA-256 of every file, checks it against the pack's SHA256SUMS when it has one,
         and reports file-level problems. Exit 1 when any pack has a problem.

See docs/models.md for where each family's packs are published and their licences.`,
  flags,
  async run(argv) {
    const args = parseArgs(argv, flags);
    const config = loadConfig({ file: stringFlag(args, "config") });
    const action = args.positional[0];
    if (action === "install") return runInstall(config, args, args.positional.slice(1));
    if (action === "remove") return runRemove(config, args, args.positional.slice(1));
    const packs = describeModels(config.paths.models_dir);
    if (action === "list") {
      if (args.flags.json) process.stdout.write(JSON.stringify({ models_dir: config.paths.models_dir, packs }) + "\n");
      else {
        process.stdout.write(`models dir: ${config.paths.models_dir}\n`);
        if (packs.length === 0)
          process.stdout.write("no packs installed: TTS speaks with the built-in espeak-ng engine; ASR needs a pack\n");
        for (const p of packs)
          process.stdout.write(
            `${p.name}\t${p.serves ?? "-"}\t${p.files.join(", ")}${p.problems.length ? `\tPROBLEM: ${p.problems.join("; ")}` : ""}\n`,
          );
      }
      return 0;
    }
    if (action === "verify") {
      const results = [];
      for (const pack of packs)
        results.push({ name: pack.name, serves: pack.serves ?? null, ...(await verifyPack(pack)) });
      const bad = results.filter((r) => r.problems.length > 0);
      if (args.flags.json) process.stdout.write(JSON.stringify({ ok: bad.length === 0, packs: results }) + "\n");
      else {
        for (const r of results) {
          process.stdout.write(
            `${r.problems.length ? "FAIL" : "ok  "}  ${r.name} (${r.serves ?? "unrecognised"}): ${Object.keys(r.sums).length} files, ${r.checked} checked against SHA256SUMS${r.problems.length ? ` — ${r.problems.join("; ")}` : ""}\n`,
          );
        }
      }
      return bad.length === 0 ? 0 : 1;
    }
    throw new UsageError(
      action
        ? `unknown models action ${JSON.stringify(action)}`
        : "models needs an action: install, remove, list or verify",
    );
  },
};
