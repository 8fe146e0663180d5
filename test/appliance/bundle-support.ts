/**
 * Helpers for appliance tests: build a real bundle (bun compile included), derive variants of it
 * (another version, a broken binary, a corrupted file) as hard-linked copies, run install.sh, and
 * snapshot a staging root to prove that a refused run changed nothing.
 */
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { ROOT } from "../support/sawt.ts";

/** Builds the bundle into `out`; resolves to the staged bundle directory. */
export function buildTestBundle(out: string, options: { tarball?: boolean; models?: string } = {}): string {
  const args = [process.execPath, join(ROOT, "installer", "bundle.ts"), "--out", out, "--skip-debs"];
  if (!options.tarball) args.push("--no-tarball");
  if (options.models) args.push("--models", options.models);
  const proc = Bun.spawnSync(args, { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`bundle failed: ${proc.stderr.toString()}`);
  const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
  return join(out, "bundle", `sawt-${version}-linux-x64`);
}

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** Rewrites SHA256SUMS for every file in `dir` (as installer/bundle.ts does). */
export function rewriteSums(dir: string): void {
  const files = listFiles(dir).filter((f) => f !== "SHA256SUMS");
  // Replaced, not rewritten in place: in a hard-linked variant the old file is the source's too.
  replaceFile(join(dir, "SHA256SUMS"), files.map((f) => `${sha256(join(dir, f))}  ${f}`).join("\n") + "\n");
}

function listFiles(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(path, base));
    else out.push(relative(base, path));
  }
  return out.sort();
}

/** Replaces a file of a hard-linked copy without touching the original's inode. */
export function replaceFile(path: string, content: string | Uint8Array, mode = 0o644): void {
  rmSync(path, { force: true });
  writeFileSync(path, content, { mode });
}

/**
 * A copy of bundle `source` at `dest` (hard links, so the 150 MB binary costs nothing) labelled
 * `version`, with `files` replaced; SHA256SUMS is rewritten unless `keepSums`.
 */
export function bundleVariant(
  source: string,
  dest: string,
  version: string,
  files: Record<string, { content: string | Uint8Array; mode?: number }> = {},
  keepSums = false,
): string {
  rmSync(dest, { recursive: true, force: true });
  const cp = Bun.spawnSync(["cp", "-al", source, dest]);
  if (cp.exitCode !== 0) throw new Error(`cp -al failed: ${cp.stderr.toString()}`);
  replaceFile(join(dest, "VERSION"), `${version}\n`);
  const manifest = JSON.parse(readFileSync(join(source, "manifest.json"), "utf8")) as Record<string, unknown>;
  replaceFile(join(dest, "manifest.json"), JSON.stringify({ ...manifest, version }, null, 2) + "\n");
  if (!keepSums) {
    for (const [path, file] of Object.entries(files)) replaceFile(join(dest, path), file.content, file.mode);
    rewriteSums(dest);
  } else {
    rewriteSums(dest);
    for (const [path, file] of Object.entries(files)) replaceFile(join(dest, path), file.content, file.mode);
  }
  return dest;
}

/** Runs `install.sh` of `bundle` with `args`. */
export async function runInstaller(bundle: string, args: readonly string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn(["sh", join(bundle, "install.sh"), ...args], {
    cwd: "/",
    env: { ...process.env, SAWT_INSTALL_HEALTH_TIMEOUT: "60", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

/**
 * Every entry under `root`: type, mode, size, mtime and content digest of files, link targets.
 * Directory mtimes are left out: creating and removing SQLite's -wal file when the installer
 * lists keys touches them without changing anything an operator would call a change.
 */
export function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const rel = relative(root, path);
      const stats = lstatSync(path);
      const mode = (stats.mode & 0o7777).toString(8);
      if (stats.isSymbolicLink()) out[rel] = `link ${readlinkSync(path)}`;
      else if (stats.isDirectory()) {
        out[rel] = `dir ${mode}`;
        walk(path);
      } else out[rel] = `file ${mode} ${stats.size} ${stats.mtimeMs} ${stats.size < 1_000_000 ? sha256(path) : ""}`;
    }
  };
  walk(root);
  return out;
}

/** Removes a file if present (cleanup). */
export function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
