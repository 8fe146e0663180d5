/** The wav2vec2-family CTC recogniser (wav2vec2, XLS-R, HuBERT, MMS) in the Hugging Face layout. */
import type { Family } from "../../models/family.ts";
import type { Recognizer } from "../recognizer.ts";
import { warmUpAudio } from "../warm-up.ts";
import { claimsWav2Vec2, configureWav2Vec2, type Wav2Vec2Config } from "./config.ts";
import { Wav2Vec2Recognizer } from "./pipeline.ts";

/** Hugging Face CTC packs serve as ASR recognisers. */
export const wav2vec2Family: Family<Wav2Vec2Config, Recognizer> = {
  name: "wav2vec2-ctc",
  role: "asr-recognizer",
  claims: claimsWav2Vec2,
  configure: configureWav2Vec2,
  load: (config, { pack, parallelRuns }) => Wav2Vec2Recognizer.load(config, pack, parallelRuns),
  warmUp: async (model) => void (await model.recognize(warmUpAudio())),
  serves: (config) =>
    `ASR recognizer (wav2vec2-ctc, ${config.modelFile}${config.language ? `, vocabulary ${config.language}` : ""})`,
};
