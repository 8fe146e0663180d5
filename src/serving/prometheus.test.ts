import { describe, expect, test } from "bun:test";
import { escapeLabelValue, formatValue, Registry } from "./prometheus.ts";

describe("Prometheus exposition", () => {
  test("does escape backslash, quote and newline in label values", () => {
    expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd');
    const r = new Registry();
    r.counter("t_total", "help with \\ and\nnewline", ["route"]).inc({ route: '/x"y' });
    expect(r.render()).toBe(
      '# HELP t_total help with \\\\ and\\nnewline\n# TYPE t_total counter\nt_total{route="/x\\"y"} 1\n',
    );
  });

  test("does write cumulative buckets, +Inf, sum and count", () => {
    const r = new Registry();
    const h = r.histogram("t_seconds", "h", ["engine"], [0.1, 1]);
    for (const v of [0.05, 0.5, 5]) h.observe({ engine: "tts" }, v);
    expect(r.render().split("\n")).toEqual([
      "# HELP t_seconds h",
      "# TYPE t_seconds histogram",
      't_seconds_bucket{engine="tts",le="0.1"} 1',
      't_seconds_bucket{engine="tts",le="1"} 2',
      't_seconds_bucket{engine="tts",le="+Inf"} 3',
      't_seconds_sum{engine="tts"} 5.55',
      't_seconds_count{engine="tts"} 3',
      "",
    ]);
  });

  test("does spell special values as Prometheus does", () => {
    expect([Infinity, -Infinity, NaN, 1e-7].map(formatValue)).toEqual(["+Inf", "-Inf", "NaN", "1e-7"]);
  });

  test("does refuse decreasing counters, duplicate and invalid names", () => {
    const r = new Registry();
    expect(() => r.counter("a_total", "x").inc({}, -1)).toThrow();
    expect(() => r.counter("a_total", "x")).toThrow(/twice/);
    expect(() => r.counter("bad-name", "x")).toThrow(/invalid/);
  });
});
