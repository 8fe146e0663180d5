/** The NeMo CTC recogniser family (sherpa-onnx's export): files → config → pipeline. */
import { recognizerFamily } from "../recognizer-family.ts";
import { claimsCtc, configureCtc, type CtcConfig } from "./config.ts";
import { CtcRecognizer } from "./pipeline.ts";

/** NeMo CTC packs serve as ASR recognisers. */
export const ctcFamily = recognizerFamily<CtcConfig>({
  name: "nemo-ctc",
  claims: claimsCtc,
  configure: configureCtc,
  load: (config, pack, parallelRuns) => CtcRecognizer.load(config, pack, parallelRuns),
});
