/**
 * The one registry of TTS packs. A folder under the models directory named after a voice
 * (case-insensitively: `yara/`, `Sherine/`, `yara_en/`) serves that voice; its family is read
 * from its files — Piper (`*.onnx` + `*.onnx.json`) or sherpa-onnx VITS (`*.onnx` with metadata
 * `model_type=vits` + `tokens.txt`) — and nowhere else. A `tashkeel/` folder diacritises Arabic
 * for the voices that want it. A broken pack is logged, reported in the engine details and
 * skipped; the rest keeps serving.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../log/logger.ts";
import { readOnnxModelInfoFile } from "../runtime/onnx-metadata.ts";
import { PackError, parsePiperConfig, parseSherpaVitsConfig, type VoiceConfig } from "./piper/config.ts";
import { checkVoiceGraph, VoiceModel } from "./piper/model.ts";
import { PiperVoice } from "./piper/pipeline.ts";
import { isTashkeelPack, loadTashkeel, type Tashkeel } from "./tashkeel.ts";
import type { BuiltinVoice } from "./types.ts";
import { builtinVoice } from "./voices.ts";

/** A pack folder that could not be used, and why. */
export interface BrokenPack {
  /** The folder name under the models directory. */
  readonly pack: string;
  readonly reason: string;
}

/** What one voice pack folder holds (for health details, doctor and `models list`). */
export interface VoicePackSummary {
  readonly name: string;
  readonly voice: BuiltinVoice;
  readonly family: VoiceConfig["family"];
  readonly sampleRate: number;
  readonly phonemeType: VoiceConfig["phonemeType"];
  readonly speakers: number;
  /** Size of the speaker embedding the model accepts (cloning, D17); undefined when none. */
  readonly embeddingDim: number | undefined;
}

/** The loaded packs of one engine start. */
export interface TtsPacks {
  readonly voices: ReadonlyMap<BuiltinVoice, PiperVoice>;
  readonly loaded: readonly VoicePackSummary[];
  readonly broken: readonly BrokenPack[];
  readonly tashkeel: boolean;
  release(): Promise<void>;
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function files(dir: string): string[] {
  return readdirSync(dir).filter((f) => !f.startsWith(".") && statSync(join(dir, f)).isFile()).sort();
}

/** Reads and validates the voice contract in `dir` without opening a session; throws {@link PackError}. */
export function readVoicePack(dir: string): VoiceConfig {
  const names = files(dir);
  const onnx = names.filter((f) => f.endsWith(".onnx"));
  const piper = onnx.filter((f) => names.includes(`${f}.json`));
  if (piper.length > 1) throw new PackError(`more than one Piper voice (${piper.join(", ")}); keep one per folder`);
  if (piper.length === 1) {
    const configPath = join(dir, `${piper[0]}.json`);
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(configPath, "utf8"));
    } catch (error) {
      throw new PackError(`${piper[0]}.json is not valid JSON: ${errorText(error)}`);
    }
    return parsePiperConfig(json, join(dir, piper[0]!));
  }
  if (names.includes("tokens.txt") && onnx.length > 0) {
    const model = onnx.includes("model.onnx") ? "model.onnx" : onnx.length === 1 ? onnx[0]! : undefined;
    if (model === undefined) throw new PackError(`several .onnx files (${onnx.join(", ")}) and none is model.onnx`);
    const modelPath = join(dir, model);
    let metadata: Readonly<Record<string, string>>;
    try {
      metadata = readOnnxModelInfoFile(modelPath).metadata;
    } catch (error) {
      throw new PackError(errorText(error));
    }
    return parseSherpaVitsConfig(metadata, readFileSync(join(dir, "tokens.txt"), "utf8"), modelPath);
  }
  throw new PackError("no Piper voice (*.onnx + *.onnx.json) or sherpa-onnx VITS model (*.onnx + tokens.txt)");
}

/** Voice pack folders under `modelsDir`, by the voice they serve. */
function voiceFolders(modelsDir: string): Array<{ name: string; dir: string; voice: BuiltinVoice }> {
  if (!existsSync(modelsDir)) return [];
  const out: Array<{ name: string; dir: string; voice: BuiltinVoice }> = [];
  for (const name of readdirSync(modelsDir).sort()) {
    const dir = join(modelsDir, name);
    const voice = builtinVoice(name);
    if (voice !== undefined && statSync(dir).isDirectory()) out.push({ name, dir, voice });
  }
  return out;
}

function tashkeelFolder(modelsDir: string): string | undefined {
  if (!existsSync(modelsDir)) return undefined;
  const name = readdirSync(modelsDir).find((entry) => entry.toLowerCase() === "tashkeel");
  return name === undefined ? undefined : join(modelsDir, name);
}

function summary(name: string, voice: BuiltinVoice, config: VoiceConfig, embeddingDim: number | undefined): VoicePackSummary {
  return { name, voice, family: config.family, sampleRate: config.sampleRate, phonemeType: config.phonemeType, speakers: config.numSpeakers, embeddingDim };
}

/**
 * Checks every TTS pack's contract from files and model headers only (no sessions): what
 * `sawt doctor` reports.
 */
export function inspectTtsPacks(modelsDir: string): { loaded: VoicePackSummary[]; broken: BrokenPack[]; tashkeel: boolean } {
  const loaded: VoicePackSummary[] = [];
  const broken: BrokenPack[] = [];
  for (const { name, dir, voice } of voiceFolders(modelsDir)) {
    try {
      const config = readVoicePack(dir);
      const graph = checkVoiceGraph(readOnnxModelInfoFile(config.modelPath), config.numSpeakers);
      if (loaded.some((l) => l.voice === voice)) throw new PackError(`another folder already serves ${voice}`);
      loaded.push(summary(name, voice, config, graph.embeddingDim));
    } catch (error) {
      broken.push({ pack: name, reason: errorText(error) });
    }
  }
  const tashkeelDir = tashkeelFolder(modelsDir);
  if (tashkeelDir !== undefined && !isTashkeelPack(tashkeelDir)) broken.push({ pack: "tashkeel", reason: "needs model.onnx, input_id_map.json and target_id_map.json" });
  return { loaded, broken, tashkeel: tashkeelDir !== undefined && isTashkeelPack(tashkeelDir) };
}

/** Loads every TTS pack under `modelsDir`: tashkeel first, then one session per voice pack. */
export async function loadTtsPacks(modelsDir: string, logger: Logger): Promise<TtsPacks> {
  const broken: BrokenPack[] = [];
  const reportBroken = (name: string, error: unknown): void => {
    const reason = errorText(error);
    broken.push({ pack: name, reason });
    logger.warn("tts pack broken, skipped", { pack: name, reason });
  };
  let tashkeel: Tashkeel | undefined;
  const tashkeelDir = tashkeelFolder(modelsDir);
  if (tashkeelDir !== undefined) {
    try {
      if (!isTashkeelPack(tashkeelDir)) throw new PackError("needs model.onnx, input_id_map.json and target_id_map.json");
      tashkeel = await loadTashkeel(tashkeelDir);
      logger.info("tashkeel pack loaded", { pack: "tashkeel" });
    } catch (error) {
      reportBroken("tashkeel", error);
    }
  }
  const voices = new Map<BuiltinVoice, PiperVoice>();
  const loaded: VoicePackSummary[] = [];
  for (const { name, dir, voice } of voiceFolders(modelsDir)) {
    try {
      if (voices.has(voice)) throw new PackError(`another folder already serves ${voice}`);
      const config = readVoicePack(dir);
      const model = await VoiceModel.load(config);
      voices.set(voice, new PiperVoice(config, model, tashkeel));
      loaded.push(summary(name, voice, config, model.embeddingDim));
      logger.info("tts pack loaded", { pack: name, voice, family: config.family, sample_rate: config.sampleRate, phoneme_type: config.phonemeType, speakers: config.numSpeakers, provider: model.provider });
    } catch (error) {
      reportBroken(name, error);
    }
  }
  return {
    voices,
    loaded,
    broken,
    tashkeel: tashkeel !== undefined,
    async release() {
      await Promise.all([...voices.values()].map((v) => v.release()));
      await tashkeel?.release();
    },
  };
}
