/** The streaming NeMo CTC family (sherpa-onnx's online layout): files → config → pipeline. */
import type { Family } from "../../../models/family.ts";
import type { Recognizer } from "../../recognizer.ts";
import { warmUpAudio } from "../../warm-up.ts";
import { claimsStreamingCtc, configureStreamingCtc, type StreamingCtcConfig } from "./config.ts";
import { StreamingCtcRecognizer } from "./pipeline.ts";

/** Streaming NeMo CTC packs serve as (streaming) ASR recognisers. */
export const streamingCtcFamily: Family<StreamingCtcConfig, Recognizer> = {
  name: "nemo-streaming-ctc",
  role: "asr-recognizer",
  claims: claimsStreamingCtc,
  configure: configureStreamingCtc,
  load: (config, { pack, parallelRuns }) => StreamingCtcRecognizer.load(config, pack, parallelRuns),
  warmUp: async (model) => void (await model.recognize(warmUpAudio())),
  serves: () => "ASR recognizer (nemo-streaming-ctc, streaming)",
};
