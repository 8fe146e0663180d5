/** The NeMo CTC recogniser family (sherpa-onnx's export): files → config → pipeline. */
import type { Family } from "../../models/family.ts";
import type { Recognizer } from "../recognizer.ts";
import { warmUpAudio } from "../warm-up.ts";
import { claimsCtc, configureCtc, type CtcConfig } from "./config.ts";
import { CtcRecognizer } from "./pipeline.ts";

/** NeMo CTC packs serve as ASR recognisers. */
export const ctcFamily: Family<CtcConfig, Recognizer> = {
  name: "nemo-ctc",
  role: "asr-recognizer",
  claims: claimsCtc,
  configure: configureCtc,
  load: (config, { pack, parallelRuns }) => CtcRecognizer.load(config, pack, parallelRuns),
  warmUp: async (model) => void (await model.recognize(warmUpAudio())),
  serves: () => "ASR recognizer (nemo-ctc)",
};
