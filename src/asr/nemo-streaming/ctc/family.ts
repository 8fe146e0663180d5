/** The streaming NeMo CTC family (sherpa-onnx's online layout): files → config → pipeline. */
import { recognizerFamily } from "../../recognizer-family.ts";
import { claimsStreamingCtc, configureStreamingCtc, type StreamingCtcConfig } from "./config.ts";
import { StreamingCtcRecognizer } from "./pipeline.ts";

/** Streaming NeMo CTC packs serve as (streaming) ASR recognisers. */
export const streamingCtcFamily = recognizerFamily<StreamingCtcConfig>({
  name: "nemo-streaming-ctc",
  claims: claimsStreamingCtc,
  configure: configureStreamingCtc,
  load: (config, pack, parallelRuns) => StreamingCtcRecognizer.load(config, pack, parallelRuns),
  facts: () => "streaming",
});
