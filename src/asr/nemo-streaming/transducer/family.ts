/** The streaming NeMo transducer family (sherpa-onnx's online layout): files → config → pipeline. */
import type { Family } from "../../../models/family.ts";
import type { Recognizer } from "../../recognizer.ts";
import { warmUpAudio } from "../../warm-up.ts";
import { claimsStreamingTransducer, configureStreamingTransducer, type StreamingTransducerConfig } from "./config.ts";
import { StreamingTransducerRecognizer } from "./pipeline.ts";

/** Streaming NeMo transducer packs serve as (streaming) ASR recognisers. */
export const streamingTransducerFamily: Family<StreamingTransducerConfig, Recognizer> = {
  name: "nemo-streaming-transducer",
  role: "asr-recognizer",
  claims: claimsStreamingTransducer,
  configure: configureStreamingTransducer,
  load: (config, { pack, parallelRuns }) => StreamingTransducerRecognizer.load(config, pack, parallelRuns),
  warmUp: async (model) => void (await model.recognize(warmUpAudio())),
  serves: () => "ASR recognizer (nemo-streaming-transducer, streaming)",
};
