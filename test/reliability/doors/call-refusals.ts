/**
 * The call doors' refusal counts (`sawt_calls_refused_total{door,reason}`), checked the same way
 * on AudioSocket and chan_websocket: read before the run, read after, and the growth of each
 * reason must equal what the cases called for — no more (a refusal counted twice), no less (one
 * not counted).
 */
import type { Box } from "../box.ts";
import type { Tally } from "./voice-bot-contract.ts";

/** `sawt_calls_refused_total` of one call door, by reason. */
async function refusals(box: Box, door: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [name, value] of await box.metrics()) {
    if (!name.startsWith("sawt_calls_refused_total{") || !name.includes(`door="${door}"`)) continue;
    const reason = /reason="([^"]+)"/.exec(name)?.[1] ?? "?";
    counts[reason] = (counts[reason] ?? 0) + value;
  }
  return counts;
}

/**
 * Runs `cases` (which add to `counted` the refusals each case calls for, by reason) between two
 * readings of `door`'s refusals, and breaches the tally where a reason grew by anything else.
 */
export async function withCountedRefusals(
  box: Box,
  door: string,
  tally: Tally,
  cases: (counted: Record<string, number>) => Promise<void>,
): Promise<void> {
  const before = await refusals(box, door);
  const counted: Record<string, number> = {};
  await cases(counted);
  const after = await refusals(box, door);
  for (const reason of new Set([...Object.keys(after), ...Object.keys(counted)])) {
    const grew = (after[reason] ?? 0) - (before[reason] ?? 0);
    if (grew !== (counted[reason] ?? 0))
      tally.breach(
        `sawt_calls_refused_total{reason="${reason}"} grew by ${grew}, the cases called for ${counted[reason] ?? 0}`,
      );
    tally.see(`counted ${reason} ${grew}/${counted[reason] ?? 0}`);
  }
}
