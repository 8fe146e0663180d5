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
    const files = readdirSync(dir).filter((f) => !f.startsWith(".") && statSync(join(dir, f)).isFile()).sort();
    packs.push({ name: entry, dir, files });
  }
  return packs;
}
