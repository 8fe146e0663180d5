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

/** Lists pack folders under `modelsDir` (missing dir → none). Hidden entries are ignored. */
export function scanModelsDir(modelsDir: string): PackFolder[] {
  if (!existsSync(modelsDir)) return [];
  const packs: PackFolder[] = [];
  for (const entry of readdirSync(modelsDir).sort()) {
    if (entry.startsWith(".")) continue;
    const dir = join(modelsDir, entry);
    if (!statSync(dir).isDirectory()) continue;
    const files = readdirSync(dir)
      .filter((f) => !f.startsWith(".") && statSync(join(dir, f)).isFile())
      .sort();
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
