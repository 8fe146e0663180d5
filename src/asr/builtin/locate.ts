/**
 * Where the built-in recogniser's files are: in the compiled binary, the folder the build embedded
 * (`--asset .cache/builtin-asr`, reachable under `/$bunfs/root/builtin-asr/`); from source, the
 * build-time folder `.cache/builtin-asr/` of the checkout that `npm start` and `bun run build`
 * fill (installer/builtin-asr.ts); `SAWT_BUILTIN_ASR_DIR` names another folder holding the pack.
 * Nothing is downloaded here: a build without the files simply has no built-in recogniser.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_ASR_FOLDER, BUILTIN_ASR_PACK } from "./pins.ts";

/** The files the built-in pack folder must hold. */
export const BUILTIN_ASR_FILES = [
  "encoder_model.onnx",
  "decoder_model_merged.onnx",
  "tokenizer.json",
  "LICENSE",
] as const;

/** The embedded folder in a compiled binary (Bun keeps an asset folder's name under its root). */
const EMBEDDED = join("/$bunfs/root", BUILTIN_ASR_FOLDER.split("/").pop()!);

/** The checkout's build-time folder, for a server run from source. */
const CHECKOUT = join(import.meta.dir, "..", "..", "..", BUILTIN_ASR_FOLDER);

/** The built-in pack folder, or null when this build or checkout has none. */
export function builtinAsrPackDir(env: Readonly<Record<string, string | undefined>> = process.env): string | null {
  const roots = env.SAWT_BUILTIN_ASR_DIR ? [env.SAWT_BUILTIN_ASR_DIR] : [EMBEDDED, CHECKOUT];
  for (const root of roots) {
    const dir = join(root, BUILTIN_ASR_PACK);
    if (BUILTIN_ASR_FILES.every((file) => existsSync(join(dir, file)))) return dir;
  }
  return null;
}
