/** The streaming NeMo transducer family (sherpa-onnx's online layout): files → config → pipeline. */
import { recognizerFamily } from "../../recognizer-family.ts";
import { claimsStreamingTransducer, configureStreamingTransducer, type StreamingTransducerConfig } from "./config.ts";
import { StreamingTransducerRecognizer } from "./pipeline.ts";

/** Streaming NeMo transducer packs serve as (streaming) ASR recognisers. */
export const streamingTransducerFamily = recognizerFamily<StreamingTransducerConfig>({
  name: "nemo-streaming-transducer",
  claims: claimsStreamingTransducer,
  configure: configureStreamingTransducer,
  load: (config, pack, parallelRuns) => StreamingTransducerRecognizer.load(config, pack, parallelRuns),
  facts: () => "streaming",
});
