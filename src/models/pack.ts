/**
 * A read-only view of one pack folder for the families' `claims` and `configure`: its name, file
 * names, paths, model headers (metadata and declared inputs/outputs, read without a session and
 * cached, so several families may look at the same header cheaply) and small text files.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PackError } from "./errors.ts";
import { readModelHeader, type OnnxModelInfo } from "./header.ts";

/** One pack folder as the families see it. */
export interface PackFiles {
  /** The folder name under the models directory (what health details call the pack). */
  readonly name: string;
  readonly dir: string;
  /** Visible regular files, sorted. */
  readonly files: readonly string[];
  has(file: string): boolean;
  path(file: string): string;
  /** The model header of `file`; throws {@link PackError} when it is not a readable ONNX model. */
  header(file: string): OnnxModelInfo;
  /** The header, or null when unreadable. */
  tryHeader(file: string): OnnxModelInfo | null;
  /** A UTF-8 text file; throws {@link PackError} when unreadable. */
  text(file: string): string;
}

/** Creates the view of `dir` holding `files`. */
export function packFiles(name: string, dir: string, files: readonly string[]): PackFiles {
  const headers = new Map<string, OnnxModelInfo | PackError>();
  const header = (file: string): OnnxModelInfo => {
    let cached = headers.get(file);
    if (cached === undefined) {
      try {
        cached = readModelHeader(join(dir, file));
      } catch (error) {
        cached = error instanceof PackError ? error : new PackError(`${file} is unreadable`);
      }
      headers.set(file, cached);
    }
    if (cached instanceof PackError) throw cached;
    return cached;
  };
  return {
    name,
    dir,
    files,
    has: (file) => files.includes(file),
    path: (file) => join(dir, file),
    header,
    tryHeader(file) {
      try {
        return header(file);
      } catch {
        return null;
      }
    },
    text(file) {
      try {
        return readFileSync(join(dir, file), "utf8");
      } catch {
        throw new PackError(`${file} is unreadable`);
      }
    },
  };
}
