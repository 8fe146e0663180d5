/**
 * Finding libespeak-ng and its data, and the error when that fails. Nothing here initialises
 * espeak or touches its global state: that is done only by the espeak worker (native.ts), the one
 * thread that ever owns the library.
 */

import { dlopen, type Library } from "bun:ffi";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { AppError, Detail } from "../../errors/taxonomy.ts";

/** Library paths tried when `SAWT_ESPEAK_LIB` is unset (Debian/Ubuntu multiarch, Fedora, source builds). */
export const DEFAULT_LIBRARY_PATHS: readonly string[] = [
  "/usr/lib/x86_64-linux-gnu/libespeak-ng.so.1",
  "/usr/lib/aarch64-linux-gnu/libespeak-ng.so.1",
  "/usr/lib64/libespeak-ng.so.1",
  "/usr/lib/libespeak-ng.so.1",
  "/usr/local/lib/libespeak-ng.so.1",
];

/** The espeak-ng functions Sawt calls. */
export const SYMBOLS = {
  espeak_Initialize: { args: ["i32", "i32", "ptr", "i32"], returns: "i32" },
  espeak_Info: { args: ["ptr"], returns: "ptr" },
  espeak_SetVoiceByName: { args: ["ptr"], returns: "i32" },
  espeak_SetParameter: { args: ["i32", "i32", "i32"], returns: "i32" },
  espeak_SetSynthCallback: { args: ["function"], returns: "void" },
  espeak_Synth: { args: ["ptr", "usize", "u32", "i32", "u32", "u32", "ptr", "ptr"], returns: "i32" },
  espeak_TextToPhonemes: { args: ["ptr", "i32", "i32"], returns: "ptr" },
  espeak_Terminate: { args: [], returns: "i32" },
} as const;

/** The raw espeak-ng functions. */
export type EspeakSymbols = Library<typeof SYMBOLS>["symbols"];

/** espeak-ng cannot be used: the library or its data is missing. Maps to 503 at the edges. */
export class EspeakUnavailableError extends AppError {
  /** Operator-facing reason (for `sawt doctor` and logs); never sent to clients. */
  readonly reason: string;
  /** Library paths tried, in order. */
  readonly tried: readonly string[];

  constructor(reason: string, tried: readonly string[], cause?: unknown) {
    super("unavailable", Detail.ttsNotReady, { cause });
    this.name = "EspeakUnavailableError";
    this.reason = reason;
    this.tried = tried;
  }
}

/** Paths tried for the library: only `SAWT_ESPEAK_LIB` when set, else the usual ones, then the soname. */
export function libraryCandidates(env: Record<string, string | undefined> = process.env): string[] {
  const override = env.SAWT_ESPEAK_LIB;
  if (override !== undefined && override !== "") return [override];
  return [...DEFAULT_LIBRARY_PATHS.filter((path) => existsSync(path)), "libespeak-ng.so.1"];
}

/**
 * The espeak-ng-data directory to pass: `SAWT_ESPEAK_DATA` when set (it must hold phontab), else
 * the one beside the library (a bundle's lib/, or Debian's multiarch dir), else the usual system
 * dirs, else undefined to let espeak use its compiled-in default.
 */
export function resolveDataPath(
  libraryPath: string,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  const override = env.SAWT_ESPEAK_DATA;
  if (override !== undefined && override !== "") {
    // Like espeak itself, accept the data directory or the directory that contains it.
    const found = [override, join(override, "espeak-ng-data")].find((dir) => existsSync(join(dir, "phontab")));
    if (found === undefined)
      throw new EspeakUnavailableError(`SAWT_ESPEAK_DATA=${override} has no phontab`, [libraryPath]);
    return found;
  }
  const candidates = [
    join(dirname(libraryPath), "espeak-ng-data"),
    "/usr/lib/x86_64-linux-gnu/espeak-ng-data",
    "/usr/share/espeak-ng-data",
  ];
  return candidates.find((dir) => existsSync(join(dir, "phontab")));
}

/** A NUL-terminated UTF-8 copy; passed as a typed array so it stays alive for the call. */
export const cstring = (text: string): Buffer => Buffer.from(`${text}\0`, "utf8");

/** A dlopen'ed but not yet initialised libespeak-ng. */
export interface LocatedLibrary {
  readonly library: Library<typeof SYMBOLS>;
  readonly libraryPath: string;
  readonly tried: readonly string[];
}

/**
 * Opens the first loadable library among {@link libraryCandidates}; throws
 * {@link EspeakUnavailableError} listing every path and why it failed. Touches no espeak state.
 */
export function locateLibrary(env: Record<string, string | undefined> = process.env): LocatedLibrary {
  const tried = libraryCandidates(env);
  const failures: string[] = [];
  for (const candidate of tried) {
    try {
      return { library: dlopen(candidate, SYMBOLS), libraryPath: candidate, tried };
    } catch (error) {
      failures.push(`${candidate}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new EspeakUnavailableError(`libespeak-ng not found (${failures.join("; ")})`, tried);
}
