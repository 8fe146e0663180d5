/** The wav2vec2-family CTC recogniser (wav2vec2, XLS-R, HuBERT, MMS) in the Hugging Face layout. */
import { recognizerFamily } from "../recognizer-family.ts";
import { claimsWav2Vec2, configureWav2Vec2, type Wav2Vec2Config } from "./config.ts";
import { Wav2Vec2Recognizer } from "./pipeline.ts";

/** Hugging Face CTC packs serve as ASR recognisers. */
export const wav2vec2Family = recognizerFamily<Wav2Vec2Config>({
  name: "wav2vec2-ctc",
  claims: claimsWav2Vec2,
  configure: configureWav2Vec2,
  load: (config, pack, parallelRuns) => Wav2Vec2Recognizer.load(config, pack, parallelRuns),
  facts: (config) => `${config.modelFile}${config.language ? `, vocabulary ${config.language}` : ""}`,
});
