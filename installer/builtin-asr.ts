/**
 * Fetches the built-in recogniser's files (src/asr/builtin/pins.ts) from the npm registry into the
 * build-time folder `.cache/builtin-asr/` (ignored by git; weights are never committed), each
 * verified by SHA-256, and builds its tokenizer.json from the pinned `llama-tokenizer-js`. The
 * build embeds that folder in the binary (installer/build.ts); `npm start` runs this first so the
 * server started from source finds it (src/asr/builtin/locate.ts). Run directly:
 * `bun installer/builtin-asr.ts`.
 */
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_ASR_FOLDER, BUILTIN_ASR_PACK, MOONSHINE_TINY_EN } from "../src/asr/builtin/pins.ts";
import {
  buildMoonshineTokenizer,
  LLAMA_TOKENIZER_JS,
  MOONSHINE_TOKENIZER_SHA256,
} from "../src/asr/moonshine/tokenizer-build.ts";
import { ensureFile, npmFile } from "./npm-pin.ts";

/** The checkout's build-time folder for the built-in recogniser. */
export const BUILTIN_ASR_DIR = join(import.meta.dir, "..", BUILTIN_ASR_FOLDER);

/** Makes `<folder>/moonshine-tiny-en/` complete and verified; returns the folder. */
export function ensureBuiltinAsr(folder = BUILTIN_ASR_DIR): string {
  // The registry's files are kept beside the folder, not in it: the folder is embedded whole.
  const downloads = join(folder, "..", "npm");
  const pack = join(folder, BUILTIN_ASR_PACK);
  for (const [name, pin] of Object.entries(MOONSHINE_TINY_EN))
    ensureFile(join(pack, name), pin.sha256, `the built-in recogniser's ${name}`, (tmp) =>
      copyFileSync(npmFile(pin, downloads), tmp),
    );
  ensureFile(
    join(pack, "tokenizer.json"),
    MOONSHINE_TOKENIZER_SHA256,
    "the built-in recogniser's tokenizer.json",
    (tmp) => writeFileSync(tmp, buildMoonshineTokenizer(readFileSync(npmFile(LLAMA_TOKENIZER_JS, downloads), "utf8"))),
  );
  return folder;
}

if (import.meta.main) {
  ensureBuiltinAsr();
  console.error(`sawt setup: built-in recogniser ready in ${BUILTIN_ASR_FOLDER}/${BUILTIN_ASR_PACK}`);
}
