/**
 * The built-in recogniser: Moonshine tiny English (MIT), carried by Sawt as it carries the
 * diacritiser, so ASR is ready with no pack installed. It is an ordinary Moonshine pack read from
 * the built-in folder (./locate.ts) through the Moonshine family; it transcribes English only
 * (../languages.ts routes Arabic requests away from it).
 */
import { packFiles } from "../../models/pack.ts";
import { configureMoonshine } from "../moonshine/config.ts";
import { MoonshineRecognizer } from "../moonshine/pipeline.ts";
import type { Recognizer } from "../recognizer.ts";
import { warmUpAudio } from "../warm-up.ts";
import { BUILTIN_ASR_FILES } from "./locate.ts";
import { BUILTIN_ASR_LANGUAGE, BUILTIN_ASR_PACK } from "./pins.ts";

/** The name health details and the `x-sawt-model` header give the built-in recogniser. */
export const BUILTIN_ASR_NAME = `builtin-${BUILTIN_ASR_PACK}`;

/** Loads and warms the built-in recogniser from its folder. */
export async function loadBuiltinRecognizer(dir: string, parallel = 1): Promise<Recognizer> {
  const pack = packFiles(BUILTIN_ASR_NAME, dir, [...BUILTIN_ASR_FILES].sort());
  const config = { ...configureMoonshine(pack), language: BUILTIN_ASR_LANGUAGE };
  const recognizer = await MoonshineRecognizer.load(config, BUILTIN_ASR_NAME, parallel);
  try {
    await recognizer.recognize(warmUpAudio());
  } catch (error) {
    await recognizer.release();
    throw error;
  }
  return recognizer;
}
