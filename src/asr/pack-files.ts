/**
 * A read-only view of one pack folder for the family detectors: its file names, paths, model
 * headers (metadata and declared inputs/outputs, read without loading the model, cached) and small
 * text files.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { OnnxFormatError, readOnnxModelInfoFile, type OnnxModelInfo } from "../runtime/onnx-metadata.ts";
import { PackError } from "./metadata.ts";

/** One pack folder as the ASR registry sees it. */
export interface PackFiles {
  readonly name: string;
  readonly dir: string;
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
  const headers = new Map<string, OnnxModelInfo | Error>();
  const header = (file: string): OnnxModelInfo => {
    let cached = headers.get(file);
    if (cached === undefined) {
      try {
        cached = readOnnxModelInfoFile(join(dir, file));
      } catch (error) {
        cached = error instanceof Error ? error : new Error(String(error));
      }
      headers.set(file, cached);
    }
    if (cached instanceof Error) {
      const why = cached instanceof OnnxFormatError ? cached.message.replace(join(dir, file), file) : `${file} is unreadable`;
      throw new PackError(why);
    }
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
