/**
 * What each folder of the models directory serves, as the one registry sees it from files and
 * model headers (no sessions): `sawt models list|verify` and `sawt doctor` report this. Every
 * claimed folder says what it serves or why it cannot; a folder nothing claims is named too.
 */
import { voiceOfFolder } from "../tts/voice-family.ts";
import { inspectModels } from "./inspect.ts";
import type { PackFolder } from "./scan.ts";

/** One folder and what it serves. */
export interface CatalogEntry extends PackFolder {
  /** e.g. `TTS voice Yara (piper)`, `ASR recognizer (whisper)`; undefined when nothing serves. */
  readonly serves: string | undefined;
  /** Why the pack that claims this folder cannot serve; empty when it can. */
  readonly problems: readonly string[];
}

/** Why an unclaimed folder is listed with a problem: the operator should know it does nothing. */
const UNRECOGNISED = "no pack family recognises these files";

/** Describes every folder under `modelsDir`, in folder-name order. */
export function describeModels(modelsDir: string): CatalogEntry[] {
  const inspection = inspectModels(modelsDir);
  const entries: CatalogEntry[] = inspection.unclaimed.map(({ name, dir, files }) => {
    return { name, dir, files, serves: undefined, problems: [UNRECOGNISED] };
  });
  const servedVoices = new Set<string>();
  for (const entry of inspection.packs) {
    const { name, dir, files } = entry.pack;
    let serves = entry.ok ? entry.family.serves(entry.config, entry.pack) : undefined;
    let problems = entry.ok ? [] : [entry.reason];
    // Two folders for one voice (`yara/`, `Yara/`): the first serves it, as in the TTS engine.
    const voice = entry.family.role === "tts-voice" ? voiceOfFolder(entry.pack) : undefined;
    if (serves !== undefined && voice !== undefined) {
      if (servedVoices.has(voice)) [serves, problems] = [undefined, [`another folder already serves ${voice}`]];
      servedVoices.add(voice);
    }
    entries.push({ name, dir, files, serves, problems });
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
