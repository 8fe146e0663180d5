/**
 * What the mixed soak (../soak.test.ts) runs: rows, each one kind of call on one door, run in
 * turn by the soak's workers, and background loads that run all along (a transcription job).
 * A row's call resolves the outcome it saw, or throws a {@link Breach} when the answer is outside
 * the door's contract. Adding a door to the soak is one row (./index.ts).
 */
import type { Box } from "../box.ts";

/** An answer outside the door's contract. */
export class Breach extends Error {
  override name = "Breach";
}

/** One kind of call. */
export interface SoakRow {
  readonly name: string;
  /** Makes the call `i`; resolves its outcome label (e.g. `200`, `busy`). */
  call(box: Box, i: number): Promise<string>;
}

/** A load that runs for the whole soak. */
export interface SoakBackground {
  readonly name: string;
  /** Starts it; `stop` ends it and resolves the calls it made, their outcomes and breaches. */
  start(box: Box): { stop(): Promise<RowStats> };
}

/** Calls, outcomes and breaches of one row. */
export interface RowStats {
  calls: number;
  readonly outcomes: Record<string, number>;
  readonly breaches: string[];
}

/** Fresh stats. */
export const emptyStats = (): RowStats => ({ calls: 0, outcomes: {}, breaches: [] });

/** Records one call's outcome (or breach) in `stats`. */
export async function tally(stats: RowStats, call: () => Promise<string>): Promise<void> {
  stats.calls++;
  try {
    const outcome = await call();
    stats.outcomes[outcome] = (stats.outcomes[outcome] ?? 0) + 1;
  } catch (error) {
    const what = error instanceof Error ? error.message : String(error);
    stats.outcomes.breach = (stats.outcomes.breach ?? 0) + 1;
    if (stats.breaches.length < 20) stats.breaches.push(what);
  }
}

/** `status` when it is one of `ok`; a 503 or 504 (busy, the contract's answer under load) as "busy"; else a breach. */
export function httpOutcome(what: string, status: number, ok: readonly number[]): string {
  if (ok.includes(status)) return String(status);
  if (status === 503 || status === 504) return "busy";
  throw new Breach(`${what} answered ${status}`);
}
