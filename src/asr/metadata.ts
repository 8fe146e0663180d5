/**
 * Typed reading of a model's metadata_props (sherpa-onnx and NeMo exports keep their settings
 * there as strings). Required keys that are missing or malformed are collected as problems, so a
 * broken pack is reported with every reason at once; defaulted keys fall back quietly.
 */

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

/** A pack that cannot be used; `reason` is shown in health details, doctor and logs. */
export class PackError extends Error {
  override readonly name = "PackError";
  constructor(readonly reason: string) {
    super(reason);
  }
}
