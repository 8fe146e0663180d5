/**
 * The one ONNX header reader families use: a model's metadata_props, inputs and outputs, read
 * from the file without a session (the low-level protobuf walk is src/onnx/metadata.ts).
 * {@link readModelHeader} turns an unreadable file into a {@link PackError} that names the file
 * relative to its pack; {@link MetadataReader} reads typed values out of metadata_props
 * (sherpa-onnx and NeMo exports keep their settings there as strings), collecting every problem
 * so a broken pack is reported with all its reasons at once; {@link missingIo} checks declared
 * graph inputs/outputs.
 */
import { basename, dirname } from "node:path";
import { readFileSync } from "node:fs";
import { OnnxFormatError, readOnnxModelInfo, readOnnxModelInfoFile, type OnnxModelInfo } from "../onnx/metadata.ts";
import { PackError } from "./errors.ts";

export type { OnnxModelInfo, OnnxValueInfo } from "../onnx/metadata.ts";

/**
 * The header of the model at `path`. Throws {@link PackError}: for a malformed file the format
 * error with the pack folder stripped from the path (health details are open), else
 * `<file> is unreadable`.
 */
export function readModelHeader(path: string): OnnxModelInfo {
  try {
    // A file embedded in the compiled binary (/$bunfs/…, the built-in recogniser) reads whole only.
    if (path.startsWith("/$bunfs/")) return readOnnxModelInfo(readFileSync(path));
    return readOnnxModelInfoFile(path);
  } catch (error) {
    const file = basename(path);
    if (error instanceof OnnxFormatError)
      throw new PackError(error.message.replace(path, file).replaceAll(`${dirname(path)}/`, ""));
    throw new PackError(`${file} is unreadable`);
  }
}

/**
 * Problems with a model's declared graph inputs/outputs: each required name must be present;
 * returns human-readable reasons (empty when fine).
 */
export function missingIo(
  info: OnnxModelInfo,
  inputs: readonly string[],
  outputs: readonly string[],
  label: string,
): string[] {
  const problems: string[] = [];
  const haveIn = new Set(info.inputs.map((i) => i.name));
  const haveOut = new Set(info.outputs.map((o) => o.name));
  const lackIn = inputs.filter((n) => !haveIn.has(n));
  const lackOut = outputs.filter((n) => !haveOut.has(n));
  if (lackIn.length > 0) problems.push(`${label} lacks input ${lackIn.join(", ")}`);
  if (lackOut.length > 0) problems.push(`${label} lacks output ${lackOut.join(", ")}`);
  return problems;
}

/** Reads typed values out of one model's metadata, collecting problems. */
export class MetadataReader {
  readonly problems: string[] = [];

  constructor(
    private readonly metadata: Readonly<Record<string, string>>,
    private readonly label: string,
  ) {}

  /** Whether `key` is present. */
  has(key: string): boolean {
    return this.metadata[key] !== undefined;
  }

  /** A required integer. */
  int(key: string): number {
    const value = this.parseInt(key);
    if (value === undefined) {
      this.problems.push(`${this.label} metadata ${key} ${this.has(key) ? "is not an integer" : "is missing"}`);
      return 0;
    }
    return value;
  }

  /** An optional integer, or `fallback`. */
  intOr<T>(key: string, fallback: T): number | T {
    if (!this.has(key)) return fallback;
    return this.int(key);
  }

  /** A required comma-separated list of integers. */
  intList(key: string): number[] {
    const raw = this.metadata[key];
    if (raw === undefined) {
      this.problems.push(`${this.label} metadata ${key} is missing`);
      return [];
    }
    return this.parseList(key, raw);
  }

  /** An optional comma-separated list of integers (empty when absent). */
  intListOr(key: string): number[] {
    const raw = this.metadata[key];
    return raw === undefined || raw.trim() === "" ? [] : this.parseList(key, raw);
  }

  /** A required comma-separated list of strings. */
  stringList(key: string): string[] {
    const raw = this.metadata[key];
    if (raw === undefined) {
      this.problems.push(`${this.label} metadata ${key} is missing`);
      return [];
    }
    return raw.split(",").map((s) => s.trim());
  }

  /** An optional string, or `fallback`. */
  stringOr(key: string, fallback: string): string {
    return this.metadata[key] ?? fallback;
  }

  private parseInt(key: string): number | undefined {
    const raw = this.metadata[key];
    if (raw === undefined || !/^\s*-?\d+\s*$/.test(raw)) return undefined;
    return Number(raw);
  }

  private parseList(key: string, raw: string): number[] {
    const parts = raw.split(",").map((s) => s.trim());
    if (!parts.every((p) => /^-?\d+$/.test(p))) {
      this.problems.push(`${this.label} metadata ${key} is not a list of integers`);
      return [];
    }
    return parts.map(Number);
  }
}
