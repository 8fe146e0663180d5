/**
 * A small Prometheus registry: counters, gauges and histograms with labels, and the text
 * exposition format (version 0.0.4) written by hand — HELP/TYPE lines, escaped label values,
 * cumulative `le` buckets with `+Inf`, `_sum` and `_count`. Values that already live elsewhere
 * (admission counters, engine states, memory) are read at scrape time through collectors.
 */

/** Label values by label name. */
export type Labels = Readonly<Record<string, string>>;

/** One exported sample of a collected metric. */
export interface Sample {
  readonly labels: Labels;
  readonly value: number;
}

type Kind = "counter" | "gauge" | "histogram";

interface Family {
  readonly name: string;
  readonly help: string;
  readonly kind: Kind;
  render(out: string[]): void;
}

/** Escapes a label value: backslash, double quote and newline (exposition format rules). */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

/** Formats a sample value (`+Inf`, `-Inf`, `NaN` spelled as Prometheus expects). */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

function labelText(labels: Labels, extra?: [string, string]): string {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabelValue(v)}"`);
  if (extra) pairs.push(`${extra[0]}="${escapeLabelValue(extra[1])}"`);
  return pairs.length === 0 ? "" : `{${pairs.join(",")}}`;
}

function keyOf(labelNames: readonly string[], labels: Labels): string {
  return JSON.stringify(labelNames.map((n) => labels[n] ?? ""));
}

function pick(labelNames: readonly string[], labels: Labels): Labels {
  return Object.fromEntries(labelNames.map((n) => [n, labels[n] ?? ""]));
}

/** A monotonically increasing count per label set. */
export class Counter implements Family {
  readonly kind = "counter";
  private readonly series = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[] = [],
  ) {}

  /** Adds `by` (≥ 0) to the series of `labels`. */
  inc(labels: Labels = {}, by = 1): void {
    if (!(by >= 0)) throw new Error(`counter ${this.name} cannot decrease`);
    const key = keyOf(this.labelNames, labels);
    const entry = this.series.get(key) ?? { labels: pick(this.labelNames, labels), value: 0 };
    entry.value += by;
    this.series.set(key, entry);
  }

  /** The current value of one series (0 when never incremented). */
  get(labels: Labels = {}): number {
    return this.series.get(keyOf(this.labelNames, labels))?.value ?? 0;
  }

  render(out: string[]): void {
    for (const { labels, value } of this.series.values())
      out.push(`${this.name}${labelText(labels)} ${formatValue(value)}`);
  }
}

/** A distribution over fixed buckets per label set. */
export class Histogram implements Family {
  readonly kind = "histogram";
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    readonly buckets: readonly number[],
  ) {
    if (buckets.some((b, i) => i > 0 && b <= buckets[i - 1]!))
      throw new Error(`histogram ${name}: buckets must increase`);
  }

  /** Records one observation. */
  observe(labels: Labels, value: number): void {
    const key = keyOf(this.labelNames, labels);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels: pick(this.labelNames, labels), counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, entry);
    }
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) entry.counts[i]!++;
    entry.sum += value;
    entry.count++;
  }

  /** Observations recorded for one series. */
  count(labels: Labels = {}): number {
    return this.series.get(keyOf(this.labelNames, labels))?.count ?? 0;
  }

  render(out: string[]): void {
    for (const { labels, counts, sum, count } of this.series.values()) {
      this.buckets.forEach((bound, i) =>
        out.push(`${this.name}_bucket${labelText(labels, ["le", formatValue(bound)])} ${counts[i]}`),
      );
      out.push(`${this.name}_bucket${labelText(labels, ["le", "+Inf"])} ${count}`);
      out.push(`${this.name}_sum${labelText(labels)} ${formatValue(sum)}`);
      out.push(`${this.name}_count${labelText(labels)} ${count}`);
    }
  }
}

/** A counter or gauge whose samples are read at scrape time. */
class Collected implements Family {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly kind: "counter" | "gauge",
    private readonly collect: () => readonly Sample[],
  ) {}

  render(out: string[]): void {
    for (const { labels, value } of this.collect()) out.push(`${this.name}${labelText(labels)} ${formatValue(value)}`);
  }
}

/** A set of metric families rendered together. */
export class Registry {
  private readonly families: Family[] = [];

  /** Registers a counter. */
  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.add(new Counter(name, help, labelNames));
  }

  /** Registers a histogram with upper bucket bounds (seconds, ratios…). */
  histogram(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]): Histogram {
    return this.add(new Histogram(name, help, labelNames, buckets));
  }

  /** Registers a gauge read at scrape time. */
  gauge(name: string, help: string, collect: () => readonly Sample[]): void {
    this.add(new Collected(name, help, "gauge", collect));
  }

  /** Registers a counter whose monotonic value lives elsewhere, read at scrape time. */
  collectedCounter(name: string, help: string, collect: () => readonly Sample[]): void {
    this.add(new Collected(name, help, "counter", collect));
  }

  /** The exposition text: every family with HELP and TYPE, ending in a newline. */
  render(): string {
    const out: string[] = [];
    for (const family of this.families) {
      out.push(`# HELP ${family.name} ${escapeHelp(family.help)}`);
      out.push(`# TYPE ${family.name} ${family.kind}`);
      family.render(out);
    }
    return out.join("\n") + "\n";
  }

  private add<F extends Family>(family: F): F {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(family.name)) throw new Error(`invalid metric name ${family.name}`);
    if (this.families.some((f) => f.name === family.name)) throw new Error(`metric ${family.name} registered twice`);
    this.families.push(family);
    return family;
  }
}
