/**
 * The tashkeel (Arabic diacritisation) family: the `tashkeel/` folder (any case). Inspection
 * checks only that the contract's three files are there (what doctor has always reported); the
 * id maps and the graph are read and checked when the model loads (./config.ts, called by
 * ./model.ts), where a bad pack is reported with its reason.
 */
import { PackError } from "../../models/errors.ts";
import type { Family } from "../../models/family.ts";
import { voiceLoadFailure } from "../voice-family.ts";
import { TASHKEEL_FILES } from "./config.ts";
import { loadTashkeel, type Tashkeel } from "./model.ts";

/** Why a `tashkeel/` folder without the contract's files cannot serve. */
const MISSING_FILES = "needs model.onnx, input_id_map.json and target_id_map.json";

/** The diacritiser the Arabic espeak voices use. */
export const tashkeelFamily: Family<string, Tashkeel> = {
  name: "tashkeel",
  role: "tashkeel",
  claims: (pack) => pack.name.toLowerCase() === "tashkeel",
  configure(pack) {
    if (!Object.values(TASHKEEL_FILES).every((file) => pack.has(file))) throw new PackError(MISSING_FILES);
    return pack.dir;
  },
  load: (dir) => loadTashkeel(dir),
  serves: () => "TTS diacritisation (tashkeel)",
  loadFailure: voiceLoadFailure,
};
