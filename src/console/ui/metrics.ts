/**
 * Reading Sawt's own Prometheus text (`GET /metrics`) for the charts: sums of a metric's samples,
 * optionally filtered by a label, and rates between two scrapes.
 */

/** One scrape: each sample line's name+labels and value. */
export type Scrape = ReadonlyArray<readonly [name: string, labels: string, value: number]>;

/** Parses the exposition text (comments skipped). */
export function parseMetrics(text: string): Scrape {
  const out: [string, string, number][] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (m) out.push([m[1]!, m[2] ?? "", Number(m[3])]);
  }
  return out;
}

/** The sum of `name`'s samples (whose labels contain `having`, if given). */
export function sum(scrape: Scrape, name: string, having?: string): number {
  let total = 0;
  for (const [n, labels, value] of scrape)
    if (n === name && (having === undefined || labels.includes(having)) && Number.isFinite(value)) total += value;
  return total;
}
