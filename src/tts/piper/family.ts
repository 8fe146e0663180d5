/**
 * The two voice families that share the Piper graph (decisions §4): Piper (`<voice>.onnx` +
 * `<voice>.onnx.json`) and sherpa-onnx VITS (`*.onnx` with metadata `model_type=vits` +
 * `tokens.txt`). They differ only in where the contract is read from (./config.ts); the model
 * (./model.ts) and pipeline (./pipeline.ts) are shared. Both claim only voice folders.
 */
import { PackError } from "../../models/errors.ts";
import type { PackFiles } from "../../models/pack.ts";
import type { LoadContext } from "../../models/family.ts";
import {
  speakOnce,
  voiceLoadFailure,
  voiceOfFolder,
  voiceServes,
  type VoiceFacts,
  type VoiceFamily,
} from "../voice-family.ts";
import { parsePiperConfig, parseSherpaVitsConfig, type VoiceConfig } from "./config.ts";
import { checkVoiceGraph, VoiceModel } from "./model.ts";
import { PiperVoice } from "./pipeline.ts";

/** A validated Piper/VITS voice pack. */
export interface PiperPackConfig {
  readonly voice: VoiceConfig;
  readonly facts: VoiceFacts;
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Checks the graph from the header and freezes the pack's facts. */
function withFacts(pack: PackFiles, model: string, voice: VoiceConfig): PiperPackConfig {
  const graph = checkVoiceGraph(pack.header(model), voice.numSpeakers);
  const { family, sampleRate, phonemeType, numSpeakers: speakers } = voice;
  const facts = { family, sampleRate, phonemeType, speakers, embeddingDim: graph.embeddingDim };
  return Object.freeze({ voice, facts: Object.freeze(facts) });
}

function piperModels(pack: PackFiles): string[] {
  return pack.files.filter((f) => f.endsWith(".onnx") && pack.has(`${f}.json`));
}

function onnxFiles(pack: PackFiles): string[] {
  return pack.files.filter((f) => f.endsWith(".onnx"));
}

async function loadVoice(config: PiperPackConfig, context: LoadContext): Promise<PiperVoice> {
  const model = await VoiceModel.load(config.voice, context.parallelRuns, context.pack);
  return new PiperVoice(config.voice, model, context.tashkeel);
}

/** Piper voices: one `*.onnx` with its `*.onnx.json` in a voice folder. */
export const piperFamily: VoiceFamily<PiperPackConfig> = {
  name: "piper",
  role: "tts-voice",
  claims: (pack) => voiceOfFolder(pack) !== undefined && piperModels(pack).length > 0,
  configure(pack) {
    const models = piperModels(pack);
    if (models.length > 1) throw new PackError(`more than one Piper voice (${models.join(", ")}); keep one per folder`);
    const model = models[0]!;
    let json: unknown;
    try {
      json = JSON.parse(pack.text(`${model}.json`));
    } catch (error) {
      throw new PackError(`${model}.json is not valid JSON: ${errorText(error)}`);
    }
    return withFacts(pack, model, parsePiperConfig(json, pack.path(model)));
  },
  load: (config, context) => loadVoice(config, context),
  serves: voiceServes,
  loadFailure: voiceLoadFailure,
  verify: speakOnce,
};

/** sherpa-onnx VITS voices: `model.onnx` (or the only `*.onnx`) + `tokens.txt` in a voice folder. */
export const vitsFamily: VoiceFamily<PiperPackConfig> = {
  name: "vits",
  role: "tts-voice",
  claims: (pack) => voiceOfFolder(pack) !== undefined && pack.has("tokens.txt") && onnxFiles(pack).length > 0,
  configure(pack) {
    const onnx = onnxFiles(pack);
    const model = onnx.includes("model.onnx") ? "model.onnx" : onnx.length === 1 ? onnx[0]! : undefined;
    if (model === undefined) throw new PackError(`several .onnx files (${onnx.join(", ")}) and none is model.onnx`);
    const metadata = pack.header(model).metadata;
    return withFacts(pack, model, parseSherpaVitsConfig(metadata, pack.text("tokens.txt"), pack.path(model)));
  },
  load: (config, context) => loadVoice(config, context),
  serves: voiceServes,
  loadFailure: voiceLoadFailure,
  verify: speakOnce,
};
