/**
 * The tashkeel (Arabic diacritisation) family: the `tashkeel/` folder (any case), holding a
 * libtashkeel model as published (./config.ts). Inspection reads the id maps and the model's
 * header, so doctor and `models list` report a pack that breaks the contract with its reason.
 * An installed pack replaces the built-in model (./builtin.ts).
 */
import { PackError } from "../../models/errors.ts";
import type { Family } from "../../models/family.ts";
import { voiceLoadFailure } from "../voice-family.ts";
import { readTashkeelConfig, TASHKEEL_FILES, type TashkeelConfig } from "./config.ts";
import { openTashkeel, type Tashkeel } from "./model.ts";

/** Why a `tashkeel/` folder without the contract's files cannot serve. */
const MISSING_FILES = "needs model.onnx, input_id_map.json and target_id_map.json";

/** The diacritiser the Arabic espeak voices use. */
export const tashkeelFamily: Family<TashkeelConfig, Tashkeel> = {
  name: "tashkeel",
  role: "tashkeel",
  claims: (pack) => pack.name.toLowerCase() === "tashkeel",
  configure(pack) {
    if (!Object.values(TASHKEEL_FILES).every((file) => pack.has(file))) throw new PackError(MISSING_FILES);
    return readTashkeelConfig(pack.dir);
  },
  load: (config) => openTashkeel(config),
  serves: (config) => `TTS diacritisation (tashkeel, ${config.graph.hints ? "with hints" : "2024 shape"})`,
  loadFailure: voiceLoadFailure,
};
