/**
 * The inspection driver: every pack folder under the models directory, the family that claims
 * it, and its validated config or why it is broken — from files and model headers only, no
 * sessions. Engines load from this (./load.ts); `sawt doctor` and `sawt models list` report it.
 */
import { PackError } from "./errors.ts";
import type { PackRole } from "./family.ts";
import { packFiles, type PackFiles } from "./pack.ts";
import { allFamilies, type AnyFamily } from "./registry.ts";
import { scanModelsDir } from "./scan.ts";

/** A claimed pack that validated. */
export interface ConfiguredPack {
  readonly ok: true;
  readonly pack: PackFiles;
  readonly family: AnyFamily;
  readonly config: unknown;
}

/** A claimed pack that did not validate. */
export interface InvalidPack {
  readonly ok: false;
  readonly pack: PackFiles;
  readonly family: AnyFamily;
  readonly reason: string;
}

/** One claimed folder. */
export type InspectedPack = ConfiguredPack | InvalidPack;

/** What the models directory holds. */
export interface PackInspection {
  /** Claimed folders in folder-name order. */
  readonly packs: readonly InspectedPack[];
  /** Folders no family claims (a catalog concern; engines ignore them). */
  readonly unclaimed: readonly PackFiles[];
}

/** Inspects every folder under `modelsDir` (a missing directory holds nothing). */
export function inspectModels(modelsDir: string): PackInspection {
  const families = allFamilies();
  const packs: InspectedPack[] = [];
  const unclaimed: PackFiles[] = [];
  for (const folder of scanModelsDir(modelsDir)) {
    const pack = packFiles(folder.name, folder.dir, folder.files);
    const family = families.find((f) => f.claims(pack));
    if (family === undefined) {
      unclaimed.push(pack);
      continue;
    }
    try {
      packs.push({ ok: true, pack, family, config: family.configure(pack) });
    } catch (error) {
      if (!(error instanceof PackError)) throw error;
      packs.push({ ok: false, pack, family, reason: error.reason });
    }
  }
  return { packs, unclaimed };
}

/** The claimed packs of `roles`, in folder-name order. */
export function packsOfRole(inspection: PackInspection, ...roles: PackRole[]): InspectedPack[] {
  return inspection.packs.filter((p) => roles.includes(p.family.role));
}
