/**
 * The TTS engine's packs, as the one model registry (src/models/registry.ts) finds them: the
 * voice packs (one per built-in voice, served by folder name: `yara/`, `Sherine/`, `yara_en/`)
 * and the diacritiser. Validation and loading go through the shared drivers
 * (src/models/inspect.ts, load.ts); this file only assembles what the TTS engine keeps. A broken
 * pack is logged, reported in the engine details and skipped; the rest keeps serving.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import type { VoicePackServing } from "../core/tts.ts";
import type { Logger } from "../log/logger.ts";
import type { BrokenPack } from "../models/errors.ts";
import { inspectModels, packsOfRole, type InspectedPack, type PackInspection } from "../models/inspect.ts";
import { loadPack, parallelRunsOf } from "../models/load.ts";
import { lazyBuiltinTashkeel } from "./tashkeel/builtin.ts";
import { packTree } from "../models/scan.ts";
import type { Tashkeel } from "./tashkeel/model.ts";
import type { BuiltinVoice } from "./types.ts";
import { voiceOfFolder, type LoadedVoice, type VoiceFacts, type VoicePackConfig } from "./voice-family.ts";
import { VoiceFolders } from "../models/voice-folders.ts";

/** What one voice pack folder holds (for health details, doctor and `models list`). */
export interface VoicePackSummary extends VoiceFacts {
  readonly name: string;
  readonly voice: BuiltinVoice;
}

/** The loaded packs of one engine start. */
export interface TtsPacks {
  readonly voices: ReadonlyMap<BuiltinVoice, LoadedVoice>;
  readonly loaded: readonly VoicePackSummary[];
  /** Which pack serves each voice, its size, provider and warm-up (GET /v1/tts/voices). */
  readonly serving: ReadonlyMap<BuiltinVoice, VoicePackServing>;
  readonly broken: readonly BrokenPack[];
  /** Where the diacritiser comes from: a `tashkeel/` pack, the built-in model, or none (`off`). */
  readonly tashkeelSource: TashkeelSource;
  /** The diacritiser the embedded espeak-ng engine and Arabic espeak voices use. */
  readonly diacritiser: Tashkeel | undefined;
  /** What the models folder held at this start (other roles, e.g. the speaker encoder, read it too). */
  readonly inspection: PackInspection;
  release(): Promise<void>;
}

/** Where the diacritiser comes from. */
export type TashkeelSource = "pack" | "built-in" | "off";

/** How {@link loadTtsPacks} picks the diacritiser (`tts.tashkeel`). */
export interface TtsPackOptions {
  readonly tashkeel?: "auto" | "off";
  /** Parallel sessions per voice pack (`tts.concurrency`); default 1. */
  readonly parallelRuns?: number;
  /** Per-pack overrides of it (`runtime.pack_sessions`, `pack=N`). */
  readonly packSessions?: readonly string[];
}

const summary = (name: string, voice: BuiltinVoice, facts: VoiceFacts): VoicePackSummary => ({ name, voice, ...facts });

/** Voice packs in folder order, each with the voice it serves. */
function voicePacks(inspection: PackInspection): Array<{ entry: InspectedPack; voice: BuiltinVoice }> {
  return packsOfRole(inspection, "tts-voice").map((entry) => ({ entry, voice: voiceOfFolder(entry.pack)! }));
}

/**
 * Checks every TTS pack's contract from files and model headers only (no sessions): what
 * `sawt doctor` reports.
 */
export function inspectTtsPacks(modelsDir: string): {
  loaded: VoicePackSummary[];
  broken: BrokenPack[];
  tashkeel: boolean;
} {
  const inspection = inspectModels(modelsDir);
  const loaded: VoicePackSummary[] = [];
  const broken: BrokenPack[] = [];
  const folders = new VoiceFolders();
  for (const { entry, voice } of voicePacks(inspection)) {
    const name = entry.pack.name;
    const conflict = folders.conflict(voice);
    if (!entry.ok) broken.push({ pack: name, reason: entry.reason });
    else if (conflict !== undefined) broken.push({ pack: name, reason: conflict });
    else {
      folders.serve(voice);
      loaded.push(summary(name, voice, (entry.config as VoicePackConfig).facts));
    }
  }
  const tashkeel = packsOfRole(inspection, "tashkeel")[0];
  if (tashkeel !== undefined && !tashkeel.ok) broken.push({ pack: tashkeel.pack.name, reason: tashkeel.reason });
  return { loaded, broken, tashkeel: tashkeel?.ok === true };
}

/**
 * Loads every TTS pack under `modelsDir`: tashkeel first (a pack's at once; the built-in model's
 * session on first use, see lazyBuiltinTashkeel), then one session per voice pack.
 */
export async function loadTtsPacks(modelsDir: string, logger: Logger, options: TtsPackOptions = {}): Promise<TtsPacks> {
  const inspection = inspectModels(modelsDir);
  const broken: BrokenPack[] = [];
  const reportBroken = (pack: string, reason: string): void => {
    broken.push({ pack, reason });
    logger.warn("tts pack broken, skipped", { pack, reason });
  };
  let tashkeel: Tashkeel | undefined;
  let tashkeelSource: TashkeelSource = "off";
  const tashkeelPack = options.tashkeel === "off" ? undefined : packsOfRole(inspection, "tashkeel")[0];
  if (tashkeelPack !== undefined) {
    const result = tashkeelPack.ok ? await loadPack(tashkeelPack) : tashkeelPack;
    if (!result.ok) reportBroken(tashkeelPack.pack.name, result.reason);
    else {
      tashkeel = result.model as Tashkeel;
      tashkeelSource = "pack";
      logger.info("tashkeel pack loaded", { pack: tashkeelPack.pack.name });
    }
  }
  if (tashkeel === undefined && options.tashkeel !== "off") {
    tashkeel = lazyBuiltinTashkeel(logger);
    tashkeelSource = "built-in";
  }
  const voices = new Map<BuiltinVoice, LoadedVoice>();
  const loaded: VoicePackSummary[] = [];
  const serving = new Map<BuiltinVoice, VoicePackServing>();
  const folders = new VoiceFolders();
  for (const { entry, voice } of voicePacks(inspection)) {
    const name = entry.pack.name;
    const conflict = folders.conflict(voice);
    if (conflict !== undefined) {
      reportBroken(name, conflict);
      continue;
    }
    const parallelRuns = parallelRunsOf(name, options.packSessions ?? [], options.parallelRuns ?? 1);
    const result = entry.ok ? await loadPack(entry, { tashkeel, parallelRuns }) : entry;
    if (!result.ok) {
      reportBroken(name, result.reason);
      continue;
    }
    const renderer = result.model as LoadedVoice;
    const facts = renderer.facts;
    folders.serve(voice);
    voices.set(voice, renderer);
    loaded.push(summary(name, voice, facts));
    const { dir } = entry.pack;
    const size = packTree(dir).reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
    serving.set(voice, {
      voice,
      name,
      family: facts.family,
      size_bytes: size,
      provider: renderer.provider,
      warm_up_ms: result.ms,
    });
    logger.info("tts pack loaded", {
      pack: name,
      voice,
      family: facts.family,
      sample_rate: facts.sampleRate,
      phoneme_type: facts.phonemeType,
      speakers: facts.speakers,
      provider: renderer.provider,
    });
  }
  return {
    voices,
    loaded,
    serving,
    broken,
    tashkeelSource,
    diacritiser: tashkeel,
    inspection,
    async release() {
      await Promise.all([...voices.values()].map((v) => v.release()));
      await tashkeel?.release();
    },
  };
}
