/**
 * Finds model packs: one folder each under the models directory, recognised by the files they
 * carry as published (Piper `*.onnx` + `*.onnx.json`, sherpa-onnx `model.onnx` + `tokens.txt`,
 * Whisper `*-encoder.onnx`/`*-decoder.onnx`/`*-tokens.txt`, Silero `silero_vad.onnx`, …).
 * This is the file-level view for `models list` and doctor; engines validate contents.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Pack families recognisable from file names alone. */
export type PackKind = "piper" | "sherpa-onnx" | "whisper" | "silero-vad" | "unknown";

/** One pack folder. */
export interface PackFolder {
  readonly name: string;
  readonly dir: string;
  readonly kind: PackKind;
  readonly files: readonly string[];
  /** What is wrong at the file level; empty when it looks complete. */
  readonly problems: readonly string[];
}

function classify(files: readonly string[]): { kind: PackKind; problems: string[] } {
  const has = (name: string) => files.includes(name);
  const onnx = files.filter((f) => f.endsWith(".onnx"));
  if (has("silero_vad.onnx")) return { kind: "silero-vad", problems: [] };
  if (files.some((f) => f.endsWith("-encoder.onnx") || f.endsWith("-encoder.int8.onnx"))) {
    const problems: string[] = [];
    if (!files.some((f) => /-decoder(\.int8)?\.onnx$/.test(f))) problems.push("missing *-decoder.onnx");
    if (!files.some((f) => f.endsWith("-tokens.txt"))) problems.push("missing *-tokens.txt");
    return { kind: "whisper", problems };
  }
  const piper = onnx.filter((f) => has(`${f}.json`));
  if (piper.length > 0) return { kind: "piper", problems: [] };
  if (onnx.length > 0 && has("tokens.txt")) return { kind: "sherpa-onnx", problems: [] };
  if (onnx.length > 0) return { kind: "unknown", problems: ["an .onnx file without its .onnx.json or tokens.txt"] };
  return { kind: "unknown", problems: ["no .onnx model file"] };
}

/** Lists pack folders under `modelsDir` (missing dir → none). Hidden entries are ignored. */
export function scanModelsDir(modelsDir: string): PackFolder[] {
  if (!existsSync(modelsDir)) return [];
  const packs: PackFolder[] = [];
  for (const entry of readdirSync(modelsDir).sort()) {
    if (entry.startsWith(".")) continue;
    const dir = join(modelsDir, entry);
    if (!statSync(dir).isDirectory()) continue;
    const files = readdirSync(dir).filter((f) => !f.startsWith(".") && statSync(join(dir, f)).isFile()).sort();
    packs.push({ name: entry, dir, files, ...classify(files) });
  }
  return packs;
}
