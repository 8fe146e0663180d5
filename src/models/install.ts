/**
 * `sawt models install`: brings a pack as its publisher published it into the models directory,
 * and `sawt models remove`. A source is staged in a hidden folder on the models directory's own
 * filesystem (./stage.ts), recognised by the same registry the engines use, validated as they
 * would (configure: metadata, input/output names; then load and one warm-up run), given a
 * SHA256SUMS, and only then renamed into place — so the models directory holds the old pack or
 * the new one, never half of either, and a refused source leaves it as it was. Hidden folders
 * are invisible to the scan (./scan.ts), so a running service never sees staging.
 */
import { writeChecksums } from "./checksums.ts";
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { VOICES } from "../core/tts.ts";
import { DEFAULT_LIMITS, type ArchiveLimits } from "./archive-limits.ts";
import { firstLine, PackError } from "./errors.ts";
import { loadPack } from "./load.ts";
import { packFiles } from "./pack.ts";
import { allFamilies } from "./registry.ts";
import { packFileNames } from "./scan.ts";
import { stageSource } from "./stage.ts";
import { PACK_RECORD, type PackRecord } from "./record.ts";

/** One installed pack. */
export interface InstalledPack {
  readonly name: string;
  readonly family: string;
  readonly serves: string;
  readonly replaced: boolean;
  readonly record: PackRecord;
}

/** A pack folder name: what health details and `models list` call it. */
const PACK_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Recognises, configures, loads and warms the staged pack; returns what the record says. */
async function validate(
  name: string,
  dir: string,
): Promise<Omit<PackRecord, "source" | "installed_at" | "size_bytes">> {
  const top = packFileNames(dir);
  const pack = packFiles(name, dir, top);
  const family = allFamilies().find((f) => f.claims(pack));
  if (family === undefined) {
    // What a voice looks like (a Piper pair, or sherpa-onnx's model + tokens.txt): name it after its voice.
    const voiceLike = top.some((f) => f.endsWith(".onnx") && (top.includes(`${f}.json`) || top.includes("tokens.txt")));
    const hint = voiceLike ? `; a voice pack must be named after a voice (--as ${VOICES.join("|")})` : "";
    throw new PackError(`no model family recognises these files (${top.join(", ") || "none"})${hint}`);
  }
  const config = family.configure(pack);
  const started = performance.now();
  const result = await loadPack({ ok: true, pack, family, config });
  if (!result.ok) throw new PackError(result.reason);
  try {
    await family.verify?.(result.model, name);
  } catch (error) {
    await result.model.release();
    throw error instanceof PackError ? error : new PackError(firstLine(error));
  }
  const warmUpMs = Math.round(performance.now() - started);
  // The device the loaded model's sessions opened on; a model that cannot say is recorded so.
  const provider = result.model.provider ?? "unknown";
  await result.model.release();
  return {
    family: family.name,
    role: family.role,
    serves: family.serves(config, pack),
    provider,
    warm_up_ms: warmUpMs,
  };
}

/** What an install may be told. */
export interface InstallOptions {
  readonly modelsDir: string;
  /** The pack's folder name (for a voice: the voice it serves); default: what the source suggests. */
  readonly as?: string;
  readonly limits?: ArchiveLimits;
}

/**
 * Installs one source (archive, folder or Piper `.onnx`). Throws {@link PackError} when it is
 * refused; the models directory is then unchanged.
 */
export async function installPack(source: string, options: InstallOptions): Promise<InstalledPack> {
  mkdirSync(options.modelsDir, { recursive: true, mode: 0o750 });
  const staging = mkdtempSync(join(options.modelsDir, ".install-"));
  try {
    const staged = await stageSource(source, staging, options.limits ?? DEFAULT_LIMITS);
    const name = options.as ?? staged.suggestedName;
    if (!PACK_NAME.test(name))
      throw new PackError(`${JSON.stringify(name)} is not a pack name (letters, digits, . _ -)`);
    mkdirSync(join(staging, "pack"));
    const dir = join(staging, "pack", name);
    renameSync(staged.dir, dir);
    const facts = await validate(name, dir);
    const size = await writeChecksums(dir);
    const record: PackRecord = {
      ...facts,
      source: staged.kind,
      installed_at: new Date().toISOString(),
      size_bytes: size,
    };
    writeFileSync(join(dir, PACK_RECORD), `${JSON.stringify(record, null, 2)}\n`, { mode: 0o644 });
    // Folder names decide voices case-insensitively (`yara/` serves Yara): `--as yara` replaces `Yara/`.
    const lower = name.toLowerCase();
    const previous = readdirSync(options.modelsDir).find((e) => !e.startsWith(".") && e.toLowerCase() === lower);
    const replaced = previous !== undefined;
    // Two renames on one filesystem: the old pack steps aside, the new one steps in.
    if (previous !== undefined) renameSync(join(options.modelsDir, previous), join(staging, "replaced"));
    renameSync(dir, join(options.modelsDir, name));
    return { name, family: facts.family, serves: facts.serves, replaced, record };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Removes the pack folder `name`; throws PackError when there is none. */
export function removePack(modelsDir: string, name: string): void {
  if (!PACK_NAME.test(name)) throw new PackError(`${JSON.stringify(name)} is not a pack name`);
  const target = join(modelsDir, name);
  if (!statSync(target, { throwIfNoEntry: false })?.isDirectory())
    throw new PackError(`no pack ${name} in ${modelsDir}`);
  // Step aside first (atomic), then delete: a scan never sees a half-deleted pack.
  const aside = mkdtempSync(join(modelsDir, ".remove-"));
  renameSync(target, join(aside, name));
  rmSync(aside, { recursive: true, force: true });
}
