/**
 * Finding and opening the Debian codec libraries (libmp3lame0, libopus0) Sawt encodes with in
 * process. They come with ffmpeg on every supported target, so they are opened by soname from
 * the usual multiarch directories; `SAWT_<NAME>_LIB` (e.g. `SAWT_MP3LAME_LIB`) overrides the path.
 * Each library is opened once per thread and kept for the life of the process.
 */
import { dlopen, type FFIFunction, type Library } from "bun:ffi";
import { existsSync } from "node:fs";

const LIBRARY_DIRS: readonly string[] = [
  "/usr/lib/x86_64-linux-gnu",
  "/usr/lib/aarch64-linux-gnu",
  "/usr/lib64",
  "/usr/lib",
  "/usr/local/lib",
];

/** A library that could be opened, or why not. */
export type Opened<Fns extends Record<string, FFIFunction>> =
  | { readonly ok: true; readonly library: Library<Fns>; readonly path: string }
  | { readonly ok: false; readonly reason: string; readonly tried: readonly string[] };

/** Paths tried for `soname`: only the env override when set, else the usual dirs, then the bare soname. */
export function codecLibraryCandidates(
  soname: string,
  envName: string,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const override = env[envName]?.trim();
  if (override) return [override];
  return [...LIBRARY_DIRS.map((dir) => `${dir}/${soname}`).filter((path) => existsSync(path)), soname];
}

/** Opens the first loadable candidate; never throws. */
export function openCodecLibrary<Fns extends Record<string, FFIFunction>>(
  soname: string,
  envName: string,
  symbols: Fns,
): Opened<Fns> {
  const tried = codecLibraryCandidates(soname, envName);
  const failures: string[] = [];
  for (const path of tried) {
    try {
      return { ok: true, library: dlopen(path, symbols), path };
    } catch (error) {
      failures.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { ok: false, reason: `${soname} not loadable (${failures.join("; ")})`, tried };
}
