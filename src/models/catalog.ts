/**
 * What each folder of the models directory serves, as the engines' own registries see it from
 * files and model headers (no sessions): TTS voices and tashkeel (src/tts/packs.ts), ASR
 * recognisers, VAD and dialect id (src/asr/packs.ts), the speaker encoder (src/voices/encoder.ts).
 * `sawt models list|verify` and `sawt doctor` report this; there is no second family switch.
 */
import { inspectAsrPacks } from "../asr/packs.ts";
import { inspectTtsPacks } from "../tts/packs.ts";
import { readSpeakerEncoderConfig, SPEAKER_ENCODER_DIR } from "../voices/encoder.ts";
import { scanModelsDir, type PackFolder } from "./scan.ts";

/** One folder and what it serves. */
export interface CatalogEntry extends PackFolder {
  /** e.g. `TTS voice Yara (piper)`, `ASR recognizer (whisper)`; undefined when nothing claims it. */
  readonly serves: string | undefined;
  /** Why the pack that claims this folder cannot serve; empty when it can. */
  readonly problems: readonly string[];
}

/** Describes every folder under `modelsDir`. */
export function describeModels(modelsDir: string): CatalogEntry[] {
  const serves = new Map<string, string>();
  const problems = new Map<string, string[]>();
  const broken = (pack: string, reason: string) => problems.set(pack, [...(problems.get(pack) ?? []), reason]);

  const tts = inspectTtsPacks(modelsDir);
  for (const voice of tts.loaded) serves.set(voice.name, `TTS voice ${voice.voice} (${voice.family})`);
  for (const b of tts.broken) broken(b.pack, b.reason);
  const asr = inspectAsrPacks(modelsDir);
  for (const pack of asr.usable) serves.set(pack.name, `ASR ${pack.role} (${pack.family})`);
  for (const b of asr.broken) broken(b.pack, b.reason);

  const folders = scanModelsDir(modelsDir);
  for (const folder of folders) {
    const lower = folder.name.toLowerCase();
    if (lower === "tashkeel" && tts.tashkeel) serves.set(folder.name, "TTS diacritisation (tashkeel)");
    if (folder.name === SPEAKER_ENCODER_DIR) {
      try {
        if (readSpeakerEncoderConfig(modelsDir)) serves.set(folder.name, "voice cloning speaker encoder");
        else broken(folder.name, "needs model.onnx");
      } catch (error) {
        broken(folder.name, (error as Error).message.split("\n")[0]!);
      }
    }
  }
  return folders.map((folder) => {
    const found = problems.get(folder.name) ?? [];
    const what = serves.get(folder.name);
    // A folder nothing claims and nothing reported is not a broken pack, but the operator should know.
    return { ...folder, serves: what, problems: what === undefined && found.length === 0 ? ["no pack family recognises these files"] : found };
  });
}
