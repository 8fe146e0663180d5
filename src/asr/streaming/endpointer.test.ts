import { describe, expect, test } from "bun:test";
import { VAD_WINDOW, type VadStream } from "../recognizer.ts";
import { Endpointer } from "./endpointer.ts";

/** A VAD that reads the probability off the window's first sample (the test writes it there). */
const probe: VadStream = { probability: async (window) => window[0]! };
const window = (p: number) => new Float32Array(VAD_WINDOW).fill(p);
const MS_PER_WINDOW = (VAD_WINDOW * 1000) / 16000;

async function run(endpointer: Endpointer, probabilities: number[]) {
  const changes = [];
  for (const [i, p] of probabilities.entries()) {
    const change = await endpointer.score(window(p), i * VAD_WINDOW);
    if (change) changes.push({ ...change, window: i });
  }
  return changes;
}

describe("Endpointer (server_vad)", () => {
  test("does start at threshold, reach back prefix_padding_ms, and end after silence_duration_ms", async () => {
    const endpointer = new Endpointer(probe, { threshold: 0.6, prefixPaddingMs: 64, silenceDurationMs: 128 });
    const probabilities = [0, 0, 0, 0, 0.55, 0.7, 0.9, 0.9, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1];
    const changes = await run(endpointer, probabilities);
    expect(changes.map((c) => [c.type, c.window])).toEqual([
      ["start", 5],
      ["end", 11],
    ]);
    expect(changes[0]!.at).toBe(5 * VAD_WINDOW - 2 * VAD_WINDOW);
    // 128 ms of silence is 4 windows: windows 8–11 are quiet, so the utterance ends with window 11.
    expect(changes[1]!.at).toBe(12 * VAD_WINDOW);
    expect(128 / MS_PER_WINDOW).toBe(4);
  });

  test("does keep the utterance open through a pause shorter than silence_duration_ms", async () => {
    const endpointer = new Endpointer(probe, { threshold: 0.5, prefixPaddingMs: 0, silenceDurationMs: 160 });
    const changes = await run(endpointer, [0.9, 0.1, 0.1, 0.9, 0.1, 0.1, 0.1, 0.1, 0.1]);
    expect(changes.map((c) => [c.type, c.window])).toEqual([
      ["start", 0],
      ["end", 8],
    ]);
  });

  test("does never reach back into the previous utterance", async () => {
    const endpointer = new Endpointer(probe, { threshold: 0.5, prefixPaddingMs: 1000, silenceDurationMs: 32 });
    const changes = await run(endpointer, [0.9, 0.1, 0.9]);
    expect(changes.map((c) => [c.type, c.at])).toEqual([
      ["start", 0],
      ["end", 2 * VAD_WINDOW],
      ["start", 2 * VAD_WINDOW],
    ]);
  });
});
