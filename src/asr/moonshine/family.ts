/** The Moonshine recogniser family (Hugging Face onnx-community layout): files → config → pipeline. */
import { recognizerFamily } from "../recognizer-family.ts";
import { claimsMoonshine, configureMoonshine, type MoonshineConfig } from "./config.ts";
import { MoonshineRecognizer } from "./pipeline.ts";

/** Moonshine packs serve as ASR recognisers. */
export const moonshineFamily = recognizerFamily<MoonshineConfig>({
  name: "moonshine",
  claims: claimsMoonshine,
  configure: configureMoonshine,
  load: (config, pack, parallelRuns) => MoonshineRecognizer.load(config, pack, parallelRuns),
  facts: (config) => config.language ?? undefined,
});
