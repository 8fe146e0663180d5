/**
 * Lists model pack folders (one per pack under the models directory) and their files. What a
 * folder *is* is decided only by the families of ./registry.ts (see ./inspect.ts).
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** One pack folder. */
export interface PackFolder {
  readonly name: string;
  readonly dir: string;
  readonly files: readonly string[];
}

/**
 * The one subfolder whose files count as the pack's (`onnx/x.onnx`): Hugging Face layouts keep
 * their models there (onnx-community's uploads for transformers.js).
 */
export const MODEL_SUBFOLDER = "onnx";

const isDir = (path: string) => existsSync(path) && statSync(path).isDirectory();

/** Visible regular files of `dir/prefix`, named with `prefix`, sorted. */
function filesOf(dir: string, prefix: string): string[] {
  return readdirSync(join(dir, prefix))
    .filter((f) => !f.startsWith(".") && statSync(join(dir, prefix, f)).isFile())
    .sort()
    .map((f) => `${prefix}${f}`);
}

/** The files of one pack folder as families see them: its own, then those of `onnx/`. */
export function packFileNames(dir: string): string[] {
  return [...filesOf(dir, ""), ...(isDir(join(dir, MODEL_SUBFOLDER)) ? filesOf(dir, `${MODEL_SUBFOLDER}/`) : [])];
}

/** Lists pack folders under `modelsDir` (missing dir → none). Hidden entries are ignored. */
export function scanModelsDir(modelsDir: string): PackFolder[] {
  if (!existsSync(modelsDir)) return [];
  const packs: PackFolder[] = [];
  for (const entry of readdirSync(modelsDir).sort()) {
    if (entry.startsWith(".")) continue;
    const dir = join(modelsDir, entry);
    if (!statSync(dir).isDirectory()) continue;
    const files = [
      ...filesOf(dir, ""),
      ...(isDir(join(dir, MODEL_SUBFOLDER)) ? filesOf(dir, `${MODEL_SUBFOLDER}/`) : []),
    ];
    packs.push({ name: entry, dir, files });
  }
  return packs;
}

/** Every file under `dir` (relative, `/`-separated, sorted), hidden ones left out. */
export function packTree(dir: string, prefix = ""): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith(".")) continue;
    const path = join(dir, name);
    const stat = statSync(path);
    if (stat.isDirectory()) files.push(...packTree(path, `${prefix}${name}/`));
    else if (stat.isFile()) files.push(`${prefix}${name}`);
  }
  return files;
}
