/** The Whisper recogniser family (sherpa-onnx's encoder/decoder export): files → config → pipeline. */
import { recognizerFamily } from "../recognizer-family.ts";
import { claimsWhisper, configureWhisper, type WhisperConfig } from "./config.ts";
import { WhisperRecognizer } from "./pipeline.ts";

/** Whisper packs serve as ASR recognisers. */
export const whisperFamily = recognizerFamily<WhisperConfig>({
  name: "whisper",
  claims: claimsWhisper,
  configure: configureWhisper,
  load: (config, pack, parallelRuns) => WhisperRecognizer.load(config, pack, parallelRuns),
});
