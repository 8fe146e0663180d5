/**
 * The install record a pack folder keeps beside its files (`.sawt-pack.json`, hidden so no family
 * and no scan mistakes it for a model file): the family and role install recognised, where it
 * came from, its size, the provider its warm-up ran on and how long load + warm-up took.
 * `sawt models list --json` shows it; a pack copied by hand simply has none.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The file name of the record inside a pack folder. */
export const PACK_RECORD = ".sawt-pack.json";

/** What install measured and recognised. */
export interface PackRecord {
  readonly family: string;
  readonly role: string;
  readonly serves: string;
  /** `tar.bz2`, `tar.gz`, `zip`, `folder`, `piper pair`. */
  readonly source: string;
  readonly installed_at: string;
  readonly size_bytes: number;
  readonly provider: string;
  readonly warm_up_ms: number;
}

/** The record of the pack in `dir`, or undefined when it has none (or it is unreadable). */
export function readPackRecord(dir: string): PackRecord | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, PACK_RECORD), "utf8")) as PackRecord;
  } catch {
    return undefined;
  }
}
