/**
 * The bounds every pack source is read under (archives, folders, Piper pairs) and the one check of
 * an entry's path. An archive is untrusted input: it came from a laptop that downloaded it from
 * the internet. Whatever the reader (tar, zip, a folder walk), an entry must stay inside its
 * folder and be a plain file or folder, and the bytes written must stay within these bounds, so
 * a hostile or corrupt archive is refused before it fills the disk.
 */
import { PackError } from "./errors.ts";

/** How much one install may unpack. */
export interface ArchiveLimits {
  /** Entries (files and folders) in one source. */
  readonly maxEntries: number;
  /** Bytes written for one source, all files together (declared sizes are checked first). */
  readonly maxTotalBytes: number;
  /**
   * Unpacked bytes per compressed byte, checked once `ratioFloorBytes` are out. Model weights
   * barely compress (about 1.1:1), tokens and JSON a few to one; a stream of zeros (a bomb)
   * compresses a thousand to one.
   */
  readonly maxRatio: number;
  readonly ratioFloorBytes: number;
}

const GIB = 1024 ** 3;

/** Defaults: room for Whisper large-v3 and its tokens (about 3 GB), nothing near a runaway stream. */
export const DEFAULT_LIMITS: ArchiveLimits = Object.freeze({
  maxEntries: 20_000,
  maxTotalBytes: 8 * GIB,
  maxRatio: 100,
  ratioFloorBytes: 32 * 1024 ** 2,
});

/** Sizes for messages: `10 GiB`, `512 MiB`. */
export function formatBytes(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) [value, unit] = [value / 1024, unit + 1];
  return `${unit === 0 ? value : value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/**
 * The entry's path as safe relative segments, or a PackError naming why not: absolute paths,
 * `..`, backslashes and control characters are refused rather than rewritten (an archive that
 * needs them is not a pack as published).
 */
export function safeEntryPath(name: string): string[] {
  if (name.length === 0 || name.length > 1024) throw new PackError(`entry name of ${name.length} characters refused`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\\]/.test(name))
    throw new PackError(`entry ${JSON.stringify(name)} has a control character or backslash`);
  if (name.startsWith("/")) throw new PackError(`entry ${JSON.stringify(name)} has an absolute path`);
  const segments = name.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.includes("..")) throw new PackError(`entry ${JSON.stringify(name)} escapes the archive's folder (..)`);
  if (segments.length === 0) throw new PackError(`entry ${JSON.stringify(name)} names no file`);
  return segments;
}

/** Counts what one source writes and refuses it the moment a bound is crossed. */
export class UnpackBudget {
  private entries = 0;
  private written = 0;

  constructor(
    private readonly limits: ArchiveLimits,
    /** Compressed bytes read so far (undefined for a folder, which has no ratio). */
    private readonly compressedRead?: () => number,
  ) {}

  /** Bytes written so far. */
  get bytes(): number {
    return this.written;
  }

  /** One more entry of `declared` bytes (its header's size), before any of it is written. */
  entry(name: string, declared: number): void {
    if (++this.entries > this.limits.maxEntries) throw new PackError(`more than ${this.limits.maxEntries} entries`);
    if (declared > this.limits.maxTotalBytes - this.written) {
      const limit = formatBytes(this.limits.maxTotalBytes);
      throw new PackError(`${name} declares ${formatBytes(declared)}, more than the ${limit} a pack may unpack to`);
    }
  }

  /** `count` more bytes written. */
  add(count: number): void {
    this.written += count;
    if (this.written > this.limits.maxTotalBytes) {
      throw new PackError(`unpacks to more than ${formatBytes(this.limits.maxTotalBytes)}`);
    }
    const compressed = this.compressedRead?.();
    if (compressed !== undefined && this.written > this.limits.ratioFloorBytes) this.ratio(this.written, compressed);
  }

  /** Refuses `unpacked` bytes from `compressed` when the ratio is a bomb's. */
  ratio(unpacked: number, compressed: number): void {
    if (unpacked > this.limits.ratioFloorBytes && unpacked > Math.max(1, compressed) * this.limits.maxRatio) {
      const ratio = Math.round(unpacked / Math.max(1, compressed));
      throw new PackError(`decompresses ${ratio}:1 (over ${this.limits.maxRatio}:1): refused as a decompression bomb`);
    }
  }
}
