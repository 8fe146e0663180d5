/**
 * Brings one pack source into a staging folder, whatever shape the publisher gave it: an archive
 * (./archive.ts), a folder (copied under the same bounds: plain files and folders only), or a
 * Piper `<voice>.onnx` with its `<voice>.onnx.json` beside it. Then finds the pack folder inside:
 * an archive with one top folder (sherpa-onnx's layout) is that folder, otherwise its root.
 */
import { copyFileSync, lstatSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { unpackArchive } from "./archive.ts";
import { safeEntryPath, UnpackBudget, type ArchiveLimits } from "./archive-limits.ts";
import { PackError } from "./errors.ts";

/** A source unpacked into staging. */
export interface StagedSource {
  /** The pack folder inside staging. */
  readonly dir: string;
  /** The pack name the source suggests (its top folder, folder or file name). */
  readonly suggestedName: string;
  /** What it was: `tar.bz2`, `zip`, `folder`, `piper pair`, … */
  readonly kind: string;
}

/** Copies a folder tree, refusing anything but plain files and folders. */
function copyTree(from: string, to: string, budget: UnpackBudget, relative = ""): void {
  mkdirSync(to, { recursive: true, mode: 0o755 });
  for (const name of readdirSync(from).sort()) {
    const path = join(from, name);
    const shown = relative ? `${relative}/${name}` : name;
    safeEntryPath(shown);
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) throw new PackError(`${shown} is a symbolic link`);
    if (stat.isDirectory()) {
      budget.entry(shown, 0);
      copyTree(path, join(to, name), budget, shown);
    } else if (stat.isFile()) {
      if (stat.nlink > 1) throw new PackError(`${shown} is a hard link`);
      budget.entry(shown, stat.size);
      copyFileSync(path, join(to, name));
      budget.add(stat.size);
    } else throw new PackError(`${shown} is not a plain file`);
  }
}

/** Names an archive suggests: `vits-piper-ar_JO.tar.bz2` → `vits-piper-ar_JO`. */
function stripArchiveExtension(file: string): string {
  return basename(file).replace(/\.(tar\.bz2|tar\.gz|tgz|tbz2|tar|zip)$/i, "");
}

/** The one top folder of an unpacked archive, when it has exactly that and nothing else. */
function topFolder(root: string): string | undefined {
  const entries = readdirSync(root);
  if (entries.length !== 1) return undefined;
  return statSync(join(root, entries[0]!)).isDirectory() ? entries[0] : undefined;
}

/**
 * Stages `source` under `staging` (an empty folder on the models directory's filesystem).
 * Throws PackError naming the problem.
 */
export async function stageSource(source: string, staging: string, limits: ArchiveLimits): Promise<StagedSource> {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(source);
  } catch {
    throw new PackError("no such file or folder");
  }
  const raw = join(staging, "unpacked");
  if (stat.isDirectory()) {
    copyTree(source, raw, new UnpackBudget(limits));
    return { dir: raw, suggestedName: basename(source), kind: "folder" };
  }
  if (!stat.isFile()) throw new PackError("neither a file nor a folder (symbolic links are not followed)");
  if (source.endsWith(".onnx")) {
    // A Piper voice as published: the model and its config side by side, nothing else.
    const config = `${source}.json`;
    if (!statSync(config, { throwIfNoEntry: false })?.isFile()) {
      throw new PackError(`${basename(source)} needs ${basename(config)} beside it (a Piper voice is the pair)`);
    }
    const budget = new UnpackBudget(limits);
    mkdirSync(raw, { mode: 0o755 });
    for (const file of [source, config]) {
      budget.entry(basename(file), statSync(file).size);
      copyFileSync(file, join(raw, basename(file)));
    }
    return { dir: raw, suggestedName: basename(source, ".onnx"), kind: "piper pair" };
  }
  mkdirSync(raw, { mode: 0o700 });
  const format = await unpackArchive(source, raw, limits);
  const top = topFolder(raw);
  return top === undefined
    ? { dir: raw, suggestedName: stripArchiveExtension(source), kind: format }
    : { dir: join(raw, top), suggestedName: top, kind: format };
}
