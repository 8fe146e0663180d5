/**
 * The built-in diacritiser: libtashkeel's published model and id maps (./builtin/, MIT, with
 * LICENSE and PROVENANCE.md), embedded in the executable as file assets so a fresh install
 * diacritises Arabic before espeak-ng with no pack. A `tashkeel/` pack in the models directory
 * replaces it; `tts.tashkeel = "off"` turns diacritisation off altogether.
 */
import type { Logger } from "../../log/logger.ts";
import { firstLine } from "../../models/errors.ts";
import { readOnnxModelInfo } from "../../onnx/metadata.ts";
// The path resolves to the source tree in a checkout and to the embedded copy (/$bunfs/…) when compiled.
import builtinModel from "./builtin/model.onnx" with { type: "file" };
import inputMap from "./builtin/input_id_map.json";
import targetMap from "./builtin/target_id_map.json";
import { tashkeelConfig, type TashkeelConfig } from "./config.ts";
import { openTashkeel, type Tashkeel } from "./model.ts";

/** Where the built-in model is (a real file in a checkout, an embedded one in the binary). */
export const BUILTIN_TASHKEEL_MODEL: string = builtinModel;

/**
 * The built-in model's validated config, its bytes read from the embedded asset (through
 * Bun.file: node:fs cannot open the compiled binary's embedded files) and its header from them.
 */
export async function builtinTashkeelConfig(): Promise<TashkeelConfig> {
  const bytes = await Bun.file(BUILTIN_TASHKEEL_MODEL).bytes();
  return tashkeelConfig(bytes, readOnnxModelInfo(bytes), { inputMap, targetMap });
}

/** Opens the built-in diacritiser. */
async function loadBuiltinTashkeel(): Promise<Tashkeel> {
  return openTashkeel(await builtinTashkeelConfig());
}

/**
 * The built-in diacritiser, its session opened by the first diacritisation, which waits for it
 * and is diacritised exactly as an eagerly opened one would be. Creating the session (~100–200
 * ms, part of it on the main thread, and ~50 MB of memory) was most of a cold start with no packs
 * (issue #19), and nothing needs it until Arabic text first reaches espeak-ng. Should it fail to
 * open, that is logged once and every diacritisation rejects with the reason.
 */
export function lazyBuiltinTashkeel(log: Logger): Tashkeel {
  let opening: Promise<Tashkeel> | undefined;
  const open = (): Promise<Tashkeel> => {
    if (!opening) {
      opening = loadBuiltinTashkeel();
      opening.catch((error: unknown) => log.error("built-in tashkeel failed to open", { reason: firstLine(error) }));
    }
    return opening;
  };
  return {
    diacritize: async (text) => (await open()).diacritize(text),
    release: async () => {
      const opened = await opening?.catch(() => undefined);
      await opened?.release();
    },
  };
}
