/** The offline NeMo transducer family (sherpa-onnx's export; RNNT and TDT): files → config → pipeline. */
import { recognizerFamily } from "../recognizer-family.ts";
import { claimsTransducer, configureTransducer, type TransducerConfig } from "./config.ts";
import { TransducerRecognizer } from "./pipeline.ts";

/** Offline NeMo transducer packs serve as ASR recognisers. */
export const transducerFamily = recognizerFamily<TransducerConfig>({
  name: "nemo-transducer",
  claims: claimsTransducer,
  configure: configureTransducer,
  load: (config, pack, parallelRuns) => TransducerRecognizer.load(config, pack, parallelRuns),
  facts: (config) => (config.tdt ? "TDT" : "RNNT"),
});
