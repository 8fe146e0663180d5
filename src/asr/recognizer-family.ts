/**
 * The one shape of a recogniser family: every ASR recogniser family is its claim, its config and
 * its loader; the role, the warm-up (half a second of quiet noise through `recognize`, ./warm-up.ts)
 * and the default `serves` line are the same for all, so they are written here once.
 */
import type { Family, LoadContext } from "../models/family.ts";
import type { PackFiles } from "../models/pack.ts";
import type { Recognizer } from "./recognizer.ts";
import { warmUpAudio } from "./warm-up.ts";

/** What differs between recogniser families. */
export interface RecognizerFamilySpec<C> {
  readonly name: string;
  claims(pack: PackFiles): boolean;
  configure(pack: PackFiles): C;
  /** Opens the recogniser: `pack` names it, `parallelRuns` sizes its session pool. */
  load(config: C, pack: string, parallelRuns: number | undefined): Promise<Recognizer>;
  /** What follows the family name in `ASR recognizer (<name>, …)`, if anything. */
  facts?(config: C): string | undefined;
}

/** A recogniser family from its spec. */
export function recognizerFamily<C>(spec: RecognizerFamilySpec<C>): Family<C, Recognizer> {
  return {
    name: spec.name,
    role: "asr-recognizer",
    claims: spec.claims,
    configure: spec.configure,
    load: (config: C, { pack, parallelRuns }: LoadContext) => spec.load(config, pack, parallelRuns),
    warmUp: async (model) => void (await model.recognize(warmUpAudio())),
    serves: (config) => {
      const facts = spec.facts?.(config);
      return `ASR recognizer (${spec.name}${facts ? `, ${facts}` : ""})`;
    },
  };
}
