/**
 * A pack's `SHA256SUMS` (sha256sum's format): written by `sawt models install` and the bundle,
 * checked by `sawt models verify`.
 */
import { createHash } from "node:crypto";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { packTree } from "./scan.ts";

/** SHA-256 of a file, hex, read as a stream. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of Bun.file(path).stream()) hash.update(chunk);
  return hash.digest("hex");
}

/** Writes `SHA256SUMS` (sha256sum's format) over every file of the pack; returns its size in bytes. */
export async function writeChecksums(dir: string): Promise<number> {
  const files = packTree(dir).filter((f) => f !== "SHA256SUMS");
  const lines: string[] = [];
  let size = 0;
  for (const file of files) {
    lines.push(`${await sha256File(join(dir, file))}  ${file}`);
    size += statSync(join(dir, file)).size;
  }
  writeFileSync(join(dir, "SHA256SUMS"), `${lines.join("\n")}\n`, { mode: 0o644 });
  return size;
}
