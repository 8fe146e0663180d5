/** The spoken-dialect identification family: files → config → pipeline. */
import type { Family } from "../../models/family.ts";
import type { DialectIdentifier } from "../recognizer.ts";
import { warmUpAudio } from "../warm-up.ts";
import { claimsDialect, configureDialect, type DialectConfig } from "./config.ts";
import { DialectPipeline } from "./pipeline.ts";

/** Dialect-id packs route ASR requests to dialect recognisers. */
export const dialectFamily: Family<DialectConfig, DialectIdentifier> = {
  name: "dialect-id",
  role: "dialect-id",
  claims: claimsDialect,
  configure: configureDialect,
  load: (config, { pack }) => DialectPipeline.load(config, pack),
  warmUp: async (model) => void (await model.identify(warmUpAudio())),
  serves: () => "ASR dialect (dialect-id)",
};
