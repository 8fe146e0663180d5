/** The Whisper recogniser family in the Hugging Face layout (Optimum / onnx-community exports). */
import type { Family } from "../../models/family.ts";
import type { Recognizer } from "../recognizer.ts";
import { warmUpAudio } from "../warm-up.ts";
import { WhisperRecognizer } from "../whisper/pipeline.ts";
import { claimsHfWhisper, configureHfWhisper, type HfWhisperConfig } from "./config.ts";
import { loadHfWhisper } from "./model.ts";

/** Hugging Face layout Whisper packs serve as ASR recognisers. */
export const hfWhisperFamily: Family<HfWhisperConfig, Recognizer> = {
  name: "whisper-hf",
  role: "asr-recognizer",
  claims: claimsHfWhisper,
  configure: configureHfWhisper,
  load: async (config, { pack, parallelRuns }) =>
    new WhisperRecognizer(pack, "whisper-hf", await loadHfWhisper(config, pack, parallelRuns)),
  warmUp: async (model) => void (await model.recognize(warmUpAudio())),
  serves: (config) => `ASR recognizer (whisper-hf, ${config.files.join(" + ")})`,
};
