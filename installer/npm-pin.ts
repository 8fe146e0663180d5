/**
 * Files of pinned npm package versions, fetched into a cache folder and verified by SHA-256: the
 * one way Sawt takes published files from the registry — the build's built-in recogniser
 * (installer/builtin-asr.ts) and the tests' real models (test/support/fixtures/) alike.
 *
 * Every file is checked against its pinned SHA-256 each time it is asked for, not only when it
 * is fetched: a cached copy with one byte changed is thrown away and fetched again, and when the
 * registry cannot give the pinned bytes the error names the package, the file and both checksums.
 * Synchronous on purpose: callers use it at module level and in build scripts.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";

/** One file of one pinned npm package version. */
export interface NpmFile {
  readonly package: string;
  readonly version: string;
  /** Path inside the package (without the tarball's leading `package/`). */
  readonly file: string;
  readonly sha256: string;
}

/** SHA-256 of a file, hex. */
export function sha256File(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** `npm@1.2.3` for messages. */
export function npmSpec(pin: NpmFile): string {
  return `${pin.package}@${pin.version}`;
}

/**
 * `target` with exactly the bytes of `sha256`: kept when it already has them, otherwise made again
 * by `make(tmp)` (which writes the file `tmp`) and moved in whole, so a reader never sees half a
 * file. Throws naming `what` and both checksums when the made file is not the pinned one.
 */
export function ensureFile(target: string, sha256: string, what: string, make: (tmp: string) => void): string {
  if (existsSync(target) && sha256File(target) === sha256) return target;
  mkdirSync(dirname(target), { recursive: true });
  const work = mkdtempSync(join(dirname(target), ".fetch-"));
  try {
    const tmp = join(work, "file");
    make(tmp);
    const got = sha256File(tmp);
    if (got !== sha256) throw new Error(`${what}: SHA-256 is ${got}, the pinned one is ${sha256}`);
    renameSync(tmp, target);
    return target;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Runs a command to completion; throws with the first line of its stderr when it fails (npm's own reason). */
function run(argv: string[], cwd: string, what: string): string {
  const proc = Bun.spawnSync(argv, { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  if (proc.exitCode === 0) return proc.stdout.toString();
  const first = proc.stderr.toString().trim().split("\n").find(Boolean) ?? `exit code ${proc.exitCode}`;
  throw new Error(`${what}: ${argv.slice(0, 3).join(" ")} failed: ${first}`);
}

/**
 * The cached path of one pinned file of an npm package, verified; fetched when missing or when its
 * bytes are not the pinned ones. Fetching is `npm pack <package>@<version> --prefer-offline`: the
 * one tarball, from npm's own cache when an earlier fetch left it there (the test suite runs
 * without a network after its install step: test/offline.sh), else from the registry — npm checks
 * it against the registry's integrity either way, and then the pinned SHA-256 is checked; no
 * dependency tree, no scripts.
 */
export function npmFile(pin: NpmFile, cacheDir: string): string {
  const what = `${npmSpec(pin)} ${pin.file} (SHA-256 ${pin.sha256})`;
  const target = join(cacheDir, "npm", `${pin.package.replace("/", "+")}@${pin.version}`, pin.file);
  return ensureFile(target, pin.sha256, what, (tmp) => {
    const work = dirname(tmp);
    try {
      run(
        ["npm", "pack", npmSpec(pin), "--prefer-offline", "--pack-destination", work, "--loglevel", "error"],
        work,
        `could not fetch ${what}`,
      );
    } catch (error) {
      throw new Error(`${(error as Error).message} (the npm registry must be reachable)`);
    }
    const tarball = readdirSync(work).find((name) => name.endsWith(".tgz"));
    if (tarball === undefined) throw new Error(`could not fetch ${what}: npm pack wrote no tarball`);
    run(["tar", "-xzf", tarball, `package/${pin.file}`], work, `${what} is not in the package`);
    renameSync(join(work, "package", pin.file), tmp);
  });
}
