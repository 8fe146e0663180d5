/** The offline NeMo transducer family (sherpa-onnx's export; RNNT and TDT): files → config → pipeline. */
import type { Family } from "../../models/family.ts";
import type { Recognizer } from "../recognizer.ts";
import { warmUpAudio } from "../warm-up.ts";
import { claimsTransducer, configureTransducer, type TransducerConfig } from "./config.ts";
import { TransducerRecognizer } from "./pipeline.ts";

/** Offline NeMo transducer packs serve as ASR recognisers. */
export const transducerFamily: Family<TransducerConfig, Recognizer> = {
  name: "nemo-transducer",
  role: "asr-recognizer",
  claims: claimsTransducer,
  configure: configureTransducer,
  load: (config, { pack, parallelRuns }) => TransducerRecognizer.load(config, pack, parallelRuns),
  warmUp: async (model) => void (await model.recognize(warmUpAudio())),
  serves: (config) => `ASR recognizer (nemo-transducer, ${config.tdt ? "TDT" : "RNNT"})`,
};
