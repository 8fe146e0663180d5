/**
 * The ASR engine's packs, as the one model registry (src/models/registry.ts) finds them:
 * recognisers, at most one VAD and at most one dialect identifier. Validation and loading go
 * through the shared drivers (src/models/inspect.ts, load.ts); this file only assembles what the
 * ASR engine keeps. A claimed pack that fails validation or loading is reported with its family
 * and reason and skipped.
 */
import type { BrokenPack } from "../models/errors.ts";
import type { PackRole } from "../models/family.ts";
import { inspectModels, packsOfRole, type ConfiguredPack } from "../models/inspect.ts";
import { loadPack, parallelRunsOf } from "../models/load.ts";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { dialectLabel } from "./dialect/config.ts";
import type { DialectIdentifier, Recognizer, VoiceActivityDetector } from "./recognizer.ts";

/**
 * File in a recogniser pack's folder declaring the dialect it is trained for (one code such as
 * `ar-egyptian`, or a bare `egyptian`): the engine routes calls whose dialect is that one to it,
 * unless `asr.dialect_packs` names another pack for the dialect.
 */
export const PACK_DIALECT_FILE = "dialect.txt";

/** The dialect a recogniser pack folder declares, or null. */
export function declaredDialect(dir: string): string | null {
  const path = join(dir, PACK_DIALECT_FILE);
  if (!existsSync(path)) return null;
  const line = readFileSync(path, "utf8")
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "" && !l.startsWith("#"));
  return line === undefined || /\s/.test(line) ? null : dialectLabel(line);
}

/** What a pack does for the ASR engine, as health details and doctor name it. */
export type AsrPackRole = "recognizer" | "vad" | "dialect";

const ASR_ROLES: Readonly<Partial<Record<PackRole, AsrPackRole>>> = {
  "asr-recognizer": "recognizer",
  vad: "vad",
  "dialect-id": "dialect",
};

/** A pack the ASR engine can use. */
export interface AsrPackInfo {
  readonly name: string;
  readonly family: string;
  readonly role: AsrPackRole;
}

/** Result of validating every ASR pack folder without loading models. */
export interface AsrPackScan {
  readonly usable: readonly (AsrPackInfo & { readonly dir: string; readonly config: unknown })[];
  readonly broken: readonly BrokenPack[];
}

interface AsrEntries {
  readonly usable: Array<{ entry: ConfiguredPack; info: AsrPackInfo }>;
  readonly broken: BrokenPack[];
}

function asrEntries(modelsDir: string): AsrEntries {
  const usable: AsrEntries["usable"] = [];
  const broken: BrokenPack[] = [];
  for (const entry of packsOfRole(inspectModels(modelsDir), "asr-recognizer", "vad", "dialect-id")) {
    const family = entry.family.name;
    if (!entry.ok) broken.push({ pack: entry.pack.name, family, reason: entry.reason });
    else usable.push({ entry, info: { name: entry.pack.name, family, role: ASR_ROLES[entry.family.role]! } });
  }
  return { usable, broken };
}

/** Validates the ASR packs under `modelsDir` from their files and headers (no sessions). */
export function inspectAsrPacks(modelsDir: string): AsrPackScan {
  const { usable, broken } = asrEntries(modelsDir);
  return { usable: usable.map(({ entry, info }) => ({ ...info, dir: entry.pack.dir, config: entry.config })), broken };
}

/** The engine's loaded packs. */
export interface LoadedAsrPacks {
  /** Recognisers by pack name, in name order. */
  readonly recognizers: ReadonlyMap<string, Recognizer>;
  /** The first Silero pack by name, if any. */
  readonly vad: VoiceActivityDetector | null;
  /** The first dialect-id pack by name, if any. */
  readonly dialect: DialectIdentifier | null;
  /** Recogniser pack → the dialect its folder declares ({@link PACK_DIALECT_FILE}). */
  readonly recognizerDialects: ReadonlyMap<string, string>;
  readonly packs: readonly AsrPackInfo[];
  readonly broken: readonly BrokenPack[];
  release(): Promise<void>;
}

/** How many sessions recognisers get (`asr.concurrency`, `runtime.pack_sessions`); default one each. */
export interface RecognizerSessions {
  readonly parallelRuns?: number;
  readonly packSessions?: readonly string[];
}

/** Validates, loads and warms every ASR pack under `modelsDir`; unusable ones land in `broken`. */
export async function loadAsrPacks(modelsDir: string, sessions: RecognizerSessions = {}): Promise<LoadedAsrPacks> {
  const { usable, broken } = asrEntries(modelsDir);
  const recognizers = new Map<string, Recognizer>();
  const recognizerDialects = new Map<string, string>();
  const packs: AsrPackInfo[] = [];
  let vad: VoiceActivityDetector | null = null;
  let dialect: DialectIdentifier | null = null;
  for (const { entry, info } of usable) {
    // One VAD and one dialect identifier serve the engine; further ones are not loaded.
    if ((info.role === "vad" && vad !== null) || (info.role === "dialect" && dialect !== null)) continue;
    // Recognisers serve requests in parallel (a session pool); VAD and dialect id are small and serial.
    const parallelRuns =
      info.role === "recognizer"
        ? parallelRunsOf(info.name, sessions.packSessions ?? [], sessions.parallelRuns ?? 1)
        : undefined;
    const result = await loadPack(entry, { parallelRuns });
    if (!result.ok) {
      broken.push({ pack: info.name, family: info.family, reason: result.reason });
      continue;
    }
    packs.push(info);
    if (info.role === "recognizer") {
      recognizers.set(info.name, result.model as Recognizer);
      const declared = declaredDialect(entry.pack.dir);
      if (declared !== null) recognizerDialects.set(info.name, declared);
    } else if (info.role === "vad") vad = result.model as VoiceActivityDetector;
    else dialect = result.model as DialectIdentifier;
  }
  return {
    recognizers,
    vad,
    dialect,
    recognizerDialects,
    packs,
    broken,
    async release() {
      await Promise.allSettled(
        [...recognizers.values(), ...(vad ? [vad] : []), ...(dialect ? [dialect] : [])].map((r) => r.release()),
      );
    },
  };
}
