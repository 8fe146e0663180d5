/**
 * What each folder of the models directory serves, as the one registry sees it from files and
 * model headers (no sessions): `sawt models list|verify` and `sawt doctor` report this. Every
 * claimed folder says what it serves or why it cannot; a folder nothing claims is named too.
 */
import { builtinVoice } from "../core/voice-table.ts";
import { statSync } from "node:fs";
import { join } from "node:path";
import { inspectModels } from "./inspect.ts";
import { readPackRecord } from "./record.ts";
import { packTree, type PackFolder } from "./scan.ts";
import { VoiceFolders } from "./voice-folders.ts";

/** One folder and what it serves. */
export interface CatalogEntry extends PackFolder {
  /** e.g. `TTS voice Yara (piper)`, `ASR recognizer (whisper)`; undefined when nothing serves. */
  readonly serves: string | undefined;
  /** Why the pack that claims this folder cannot serve; empty when it can. */
  readonly problems: readonly string[];
  /** The family that claims it (`piper`, `whisper`, …); null when none does. */
  readonly family: string | null;
  /** Every file of the folder, subfolders included (test_wavs/ of a sherpa-onnx pack). */
  readonly size_bytes: number;
  /** What `sawt models install` measured: its warm-up's provider and time; null for a pack copied by hand. */
  readonly provider: string | null;
  readonly warm_up_ms: number | null;
  readonly installed_at: string | null;
}

function folderFacts(dir: string): Pick<CatalogEntry, "size_bytes" | "provider" | "warm_up_ms" | "installed_at"> {
  const size = packTree(dir).reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
  const record = readPackRecord(dir);
  return {
    size_bytes: size,
    provider: record?.provider ?? null,
    warm_up_ms: record?.warm_up_ms ?? null,
    installed_at: record?.installed_at ?? null,
  };
}

/** Why an unclaimed folder is listed with a problem: the operator should know it does nothing. */
const UNRECOGNISED = "no pack family recognises these files";

/** Describes every folder under `modelsDir`, in folder-name order. */
export function describeModels(modelsDir: string): CatalogEntry[] {
  const inspection = inspectModels(modelsDir);
  const entries: CatalogEntry[] = inspection.unclaimed.map(({ name, dir, files }) => {
    return { name, dir, files, serves: undefined, problems: [UNRECOGNISED], family: null, ...folderFacts(dir) };
  });
  const voiceFolders = new VoiceFolders();
  for (const entry of inspection.packs) {
    const { name, dir, files } = entry.pack;
    let serves = entry.ok ? entry.family.serves(entry.config, entry.pack) : undefined;
    let problems = entry.ok ? [] : [entry.reason];
    // Two folders for one voice: ./voice-folders.ts, the rule the TTS engine applies too.
    const voice = entry.family.role === "tts-voice" ? builtinVoice(entry.pack.name) : undefined;
    if (serves !== undefined && voice !== undefined) {
      const conflict = voiceFolders.conflict(voice);
      if (conflict !== undefined) [serves, problems] = [undefined, [conflict]];
      voiceFolders.serve(voice);
    }
    entries.push({ name, dir, files, serves, problems, family: entry.family.name, ...folderFacts(dir) });
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
