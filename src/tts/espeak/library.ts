/**
 * libespeak-ng loaded in-process through bun:ffi (DESIGN §1: the same library piper-phonemize
 * wraps). espeak-ng keeps global state (current voice, parameters, one synth callback), so
 * every call goes through {@link withEspeak}, a FIFO queue that runs one task at a time even
 * when tasks await in the middle. The library is located and initialised on first use.
 */

import { CString, dlopen, JSCallback, toArrayBuffer, type Library, type Pointer } from "bun:ffi";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { AppError, Detail } from "../../errors/taxonomy.ts";
import { log } from "../../log/logger.ts";

/** espeak_AUDIO_OUTPUT: synthesise into the callback, on the calling thread. */
const AUDIO_OUTPUT_SYNCHRONOUS = 2;
/** Without this option espeak_Initialize calls exit(1) when its data is missing. */
const INITIALIZE_DONT_EXIT = 0x8000;
/** Milliseconds of audio per callback; larger chunks mean fewer JS round trips. */
const BUFFER_MS = 500;
const EE_OK = 0;

/** Library paths tried when `SAWT_ESPEAK_LIB` is unset (Debian/Ubuntu multiarch, Fedora, source builds). */
export const DEFAULT_LIBRARY_PATHS: readonly string[] = [
  "/usr/lib/x86_64-linux-gnu/libespeak-ng.so.1",
  "/usr/lib/aarch64-linux-gnu/libespeak-ng.so.1",
  "/usr/lib64/libespeak-ng.so.1",
  "/usr/lib/libespeak-ng.so.1",
  "/usr/local/lib/libespeak-ng.so.1",
];

const SYMBOLS = {
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

/** An initialised espeak-ng. Use only inside {@link withEspeak}. */
export interface Espeak {
  readonly symbols: EspeakSymbols;
  /** Output rate of espeak's own voices (22050 Hz for espeak-ng 1.51). */
  readonly sampleRate: number;
  /** e.g. "1.51". */
  readonly version: string;
  readonly libraryPath: string;
  readonly dataPath: string;
  /** Selects a voice ("ar", "en-us", "ar+f2"), skipping the reload when it is already current. */
  setVoice(name: string): void;
  /** Runs `synth` with espeak's audio callback feeding `sink`; returns what `synth` returned. */
  captureAudio(sink: (chunk: Int16Array) => void, synth: () => number): number;
}

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

/** What `sawt doctor` and health details report about espeak-ng. */
export type EspeakStatus =
  | { readonly available: true; readonly version: string; readonly libraryPath: string; readonly dataPath: string; readonly sampleRate: number }
  | { readonly available: false; readonly reason: string; readonly tried: readonly string[] };

interface Loaded extends Espeak {
  close(): void;
}

let loaded: Loaded | undefined;
let queue: Promise<unknown> = Promise.resolve();

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
export function resolveDataPath(libraryPath: string, env: Record<string, string | undefined> = process.env): string | undefined {
  const override = env.SAWT_ESPEAK_DATA;
  if (override !== undefined && override !== "") {
    // Like espeak itself, accept the data directory or the directory that contains it.
    const found = [override, join(override, "espeak-ng-data")].find((dir) => existsSync(join(dir, "phontab")));
    if (found === undefined) throw new EspeakUnavailableError(`SAWT_ESPEAK_DATA=${override} has no phontab`, [libraryPath]);
    return found;
  }
  const candidates = [join(dirname(libraryPath), "espeak-ng-data"), "/usr/lib/x86_64-linux-gnu/espeak-ng-data", "/usr/share/espeak-ng-data"];
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

function open(env: Record<string, string | undefined>): Loaded {
  const { library, libraryPath, tried } = locateLibrary(env);
  const symbols = library.symbols;
  let dataPath: string | undefined;
  try {
    dataPath = resolveDataPath(libraryPath, env);
  } catch (error) {
    library.close();
    throw error;
  }
  const sampleRate = symbols.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, BUFFER_MS, dataPath === undefined ? null : cstring(dataPath), INITIALIZE_DONT_EXIT);
  // With DONT_EXIT a missing data directory still "initialises"; selecting a voice tells the truth.
  if (sampleRate <= 0 || symbols.espeak_SetVoiceByName(cstring("en")) !== EE_OK) {
    symbols.espeak_Terminate();
    library.close();
    throw new EspeakUnavailableError(`espeak-ng data not usable (${dataPath ?? "built-in default path"})`, tried);
  }
  const dataOut = new BigUint64Array(1);
  const versionPtr = symbols.espeak_Info(dataOut);
  const version = versionPtr === null ? "unknown" : new CString(versionPtr).toString();
  const reportedData = dataOut[0] === 0n ? (dataPath ?? "") : new CString(Number(dataOut[0]) as Pointer).toString();

  // One callback for the library's lifetime: espeak keeps a single global pointer to it, so a
  // per-call JSCallback would leak trampolines or leave espeak holding a freed one.
  let sink: ((chunk: Int16Array) => void) | undefined;
  const callback = new JSCallback(
    (wav: Pointer | null, count: number): number => {
      if (wav !== null && count > 0 && sink !== undefined) sink(new Int16Array(toArrayBuffer(wav, 0, count * 2)).slice());
      return 0;
    },
    { args: ["ptr", "i32", "ptr"], returns: "i32" },
  );
  symbols.espeak_SetSynthCallback(callback.ptr);
  let currentVoice = "en";

  log.info("espeak-ng loaded", { component: "espeak", version, library: libraryPath, data_path: reportedData, sample_rate: sampleRate });
  return {
    symbols,
    sampleRate,
    version,
    libraryPath,
    dataPath: reportedData,
    setVoice(name) {
      if (name === currentVoice) return;
      const status = symbols.espeak_SetVoiceByName(cstring(name));
      if (status !== EE_OK) {
        currentVoice = ""; // unknown what espeak kept: select again next time
        throw new AppError("internal", Detail.internal, { cause: new Error(`espeak-ng has no voice "${name}" (status ${status})`) });
      }
      currentVoice = name;
    },
    captureAudio(next, synth) {
      sink = next;
      try {
        return synth();
      } finally {
        sink = undefined;
      }
    },
    close() {
      symbols.espeak_Terminate();
      callback.close();
      library.close();
    },
  };
}

/**
 * Runs `task` with exclusive use of espeak-ng, after every task queued before it. Loads and
 * initialises the library on first use; rejects with {@link EspeakUnavailableError} when it
 * cannot. A failing task does not block the queue.
 */
export function withEspeak<T>(task: (espeak: Espeak) => T | Promise<T>): Promise<T> {
  const run = queue.then(() => {
    loaded ??= open(process.env);
    return task(loaded);
  });
  queue = run.catch(() => undefined);
  return run;
}

/** Loads espeak-ng if needed and reports whether it works (for `sawt doctor` and health). */
export async function probeEspeak(): Promise<EspeakStatus> {
  try {
    return await withEspeak((e) => ({ available: true as const, version: e.version, libraryPath: e.libraryPath, dataPath: e.dataPath, sampleRate: e.sampleRate }));
  } catch (error) {
    if (error instanceof EspeakUnavailableError) return { available: false, reason: error.reason, tried: error.tried };
    return { available: false, reason: error instanceof Error ? error.message : String(error), tried: [] };
  }
}

/** Terminates espeak-ng and frees its callback and library (shutdown, tests); the next use reloads. */
export function closeEspeak(): Promise<void> {
  const run = queue.then(() => {
    loaded?.close();
    loaded = undefined;
  });
  queue = run.catch(() => undefined);
  return run;
}
