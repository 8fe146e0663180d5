/** The Whisper recogniser family (sherpa-onnx's encoder/decoder export): files → config → pipeline. */
import type { Family } from "../../models/family.ts";
import type { Recognizer } from "../recognizer.ts";
import { warmUpAudio } from "../warm-up.ts";
import { claimsWhisper, configureWhisper, type WhisperConfig } from "./config.ts";
import { WhisperRecognizer } from "./pipeline.ts";

/** Whisper packs serve as ASR recognisers. */
export const whisperFamily: Family<WhisperConfig, Recognizer> = {
  name: "whisper",
  role: "asr-recognizer",
  claims: claimsWhisper,
  configure: configureWhisper,
  load: (config, { pack, parallelRuns }) => WhisperRecognizer.load(config, pack, parallelRuns),
  warmUp: async (model) => void (await model.recognize(warmUpAudio())),
  serves: () => "ASR recognizer (whisper)",
};
