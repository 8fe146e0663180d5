/** The Whisper recogniser family in the Hugging Face layout (Optimum / onnx-community exports). */
import { recognizerFamily } from "../recognizer-family.ts";
import { WhisperRecognizer } from "../whisper/pipeline.ts";
import { claimsHfWhisper, configureHfWhisper, type HfWhisperConfig } from "./config.ts";
import { loadHfWhisper } from "./model.ts";

/** Hugging Face layout Whisper packs serve as ASR recognisers. */
export const hfWhisperFamily = recognizerFamily<HfWhisperConfig>({
  name: "whisper-hf",
  claims: claimsHfWhisper,
  configure: configureHfWhisper,
  load: (config, pack, parallelRuns) =>
    loadHfWhisper(config, pack, parallelRuns).then((backend) => new WhisperRecognizer(pack, "whisper-hf", backend)),
  facts: (config) => config.files.join(" + "),
});
