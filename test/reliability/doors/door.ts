/**
 * What a fuzzed door is to the harness (./harness.ts): a name, what it covers (one line for
 * docs/reliability.md), and a run that sends `cases` seeded cases to the box and checks every
 * answer against that door's contract. Adding a door to the campaign is one module exporting a
 * {@link FuzzDoor} and one line in ./index.ts; the harness does the rest (warm-up, the leak and
 * crash checks before and after, the figures).
 */
import type { Box } from "../box.ts";
import { Random } from "../fuzz/random.ts";

/** How much of a door to run. */
export interface DoorPlan {
  readonly seed: number;
  readonly cases: number;
  readonly concurrency: number;
}

/** A door's tally: cases sent, outcomes seen (status or event → count), every contract breach. */
export interface DoorTally {
  cases: number;
  readonly outcomes: Record<string, number>;
  readonly violations: string[];
}

/** One fuzzed door. */
export interface FuzzDoor {
  readonly name: string;
  /** What its cases vary and what its contract is, for the report. */
  readonly covers: string;
  /** Sends `plan.cases` cases; resolves the tally. */
  run(box: Box, plan: DoorPlan): Promise<DoorTally>;
  /**
   * Milliseconds the box may take after the run to free what the cases left on purpose (a session
   * abandoned to its idle timeout, a job finishing), before leaks are counted.
   */
  readonly settleMs: number;
  /**
   * Brings up, before the baseline is read, what the door's first use opens for good and the
   * warm-up cases may not reach (the jobs door: the client that sends webhooks).
   */
  prepare?(box: Box): Promise<void>;
}

/** A fresh tally with its recording helpers. */
export function newTally(): DoorTally & { see(outcome: string): void; breach(what: string): void } {
  const tally = {
    cases: 0,
    outcomes: {} as Record<string, number>,
    violations: [] as string[],
    see(outcome: string) {
      tally.outcomes[outcome] = (tally.outcomes[outcome] ?? 0) + 1;
    },
    breach(what: string) {
      tally.violations.push(what);
    },
  };
  return tally;
}

/**
 * Runs `worker` `concurrency` times at once, each with its own seeded Random (derived from the
 * plan's seed, so a seed reproduces every worker's cases) and its share of the cases.
 */
export async function inWorkers(
  plan: DoorPlan,
  worker: (random: Random, cases: number, index: number) => Promise<void>,
): Promise<void> {
  const master = new Random(plan.seed);
  const share = Math.ceil(plan.cases / plan.concurrency);
  await Promise.all(
    Array.from({ length: plan.concurrency }, (_, i) =>
      worker(new Random(master.int(1, 2 ** 31)), Math.max(0, Math.min(share, plan.cases - i * share)), i),
    ),
  );
}
