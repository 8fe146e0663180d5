/**
 * Paths a job names under the operator's source folders (`jobs.source_dirs`, e.g. an NFS mount
 * of the recording server). Two checks, in this order, so nothing outside is ever opened:
 *  1. lexical: the path, resolved against the first folder when relative (`..` collapsed), must
 *     lie inside a folder — `../../etc/passwd` and `/etc/passwd` stop here, untouched;
 *  2. real: `realpath` (which only follows links, reading no file) must lie inside the real path
 *     of a folder — a symlink that escapes stops here.
 * A folder names every audio file below it (recursively, sorted), each checked the same way. The
 * runner checks a file again right before decoding it, and decodes the real path it found, so a
 * file swapped for a link after the job was accepted is refused too.
 */
import { readdirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { allowedExtension } from "../../audio/upload.ts";

/** Why a path was refused (the 422 message; never echoes anything outside the folders). */
export class SourcePathError extends Error {}

/** A folder holds more files than a job may (413). */
export class TooManyFilesError extends Error {}

/** True when `path` is `dir` or below it (both absolute and normalised). */
function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** The real paths of the configured folders that exist (a missing mount refuses its paths). */
export function realSourceDirs(dirs: readonly string[]): string[] {
  return dirs.flatMap((dir) => {
    try {
      return [realpathSync(resolve(dir))];
    } catch {
      return [];
    }
  });
}

/**
 * The real path of `requested` when it lies inside one of `dirs` (lexically and for real).
 * Throws {@link SourcePathError}.
 */
export function resolveSourcePath(requested: string, dirs: readonly string[]): string {
  if (dirs.length === 0) throw new SourcePathError("No source folders are configured (jobs.source_dirs)");
  if (requested.includes("\0")) throw new SourcePathError("Invalid path");
  const lexical = isAbsolute(requested) ? resolve(requested) : resolve(dirs[0]!, requested);
  const lexicalDirs = dirs.map((dir) => resolve(dir));
  if (!lexicalDirs.some((dir) => inside(dir, lexical))) throw new SourcePathError("Outside the allowed source folders");
  let real: string;
  try {
    real = realpathSync(lexical);
  } catch {
    throw new SourcePathError("No such file or folder");
  }
  if (!realSourceDirs(dirs).some((dir) => inside(dir, real)))
    throw new SourcePathError("Outside the allowed source folders (it links out)");
  return real;
}

/** One file a job will transcribe, by its real path and the name it is reported under. */
export interface SourceFile {
  readonly path: string;
  readonly name: string;
}

/**
 * The files `requested` names: itself, or every audio file below it when it is a folder. Stops
 * with {@link SourcePathError} once more than `limit` files are found (the caller's bound).
 */
export function expandSourcePath(requested: string, dirs: readonly string[], limit: number): SourceFile[] {
  const real = resolveSourcePath(requested, dirs);
  const stat = statSync(real);
  if (stat.isFile()) {
    if (allowedExtension(real) === undefined) throw new SourcePathError("Not an accepted audio file type");
    return [{ path: real, name: requested }];
  }
  if (!stat.isDirectory()) throw new SourcePathError("Not a file or folder");
  const found: SourceFile[] = [];
  const walk = (dir: string, shown: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = join(dir, entry.name);
      const childShown = `${shown}/${entry.name}`;
      // Each entry is checked like a named path: a link inside a folder must not lead out either.
      const childReal = resolveSourcePath(child, dirs);
      const childStat = statSync(childReal);
      if (childStat.isDirectory()) walk(childReal, childShown);
      else if (childStat.isFile() && allowedExtension(childReal) !== undefined) {
        found.push({ path: childReal, name: childShown });
        if (found.length > limit) throw new TooManyFilesError(`More than ${limit} files`);
      }
    }
  };
  walk(real, requested.replace(/\/+$/, ""));
  return found;
}
