/** The Moonshine recogniser family (Hugging Face onnx-community layout): files → config → pipeline. */
import type { Family } from "../../models/family.ts";
import type { Recognizer } from "../recognizer.ts";
import { warmUpAudio } from "../warm-up.ts";
import { claimsMoonshine, configureMoonshine, type MoonshineConfig } from "./config.ts";
import { MoonshineRecognizer } from "./pipeline.ts";

/** Moonshine packs serve as ASR recognisers. */
export const moonshineFamily: Family<MoonshineConfig, Recognizer> = {
  name: "moonshine",
  role: "asr-recognizer",
  claims: claimsMoonshine,
  configure: configureMoonshine,
  load: (config, { pack, parallelRuns }) => MoonshineRecognizer.load(config, pack, parallelRuns),
  warmUp: async (model) => void (await model.recognize(warmUpAudio())),
  serves: (config) => `ASR recognizer (moonshine${config.language ? `, ${config.language}` : ""})`,
};
