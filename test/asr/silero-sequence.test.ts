/**
 * The Silero VAD v5 graph rebuilt to score a chunk of windows in one run (src/asr/vad/
 * silero-sequence.ts), on the real published file: it takes N windows and a state and gives N
 * probabilities and the state after the last, equal to the published graph run window by window;
 * the served detector uses it (no fallback warning); and a file with Silero's inputs and outputs
 * but another graph is refused with the reason and still scored, window by window.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sileroSequenceModel } from "../../src/asr/vad/silero-sequence.ts";
import { loadSilero } from "../../src/asr/vad/silero.ts";
import { setLogSink } from "../../src/log/logger.ts";
import { loadOrt } from "../../src/onnx/ort.ts";
import { GraphBuilder } from "../support/onnx/builder.ts";
import { tempDir } from "../support/sawt.ts";
import { realSpeechWithPauses, sileroModel } from "./support.ts";

const ort = await loadOrt();
const W = 512;
const WIDTH = 576;

/** The first `count` windows of real speech, each with the previous window's last 64 samples. */
function windowsWithContext(count: number): Float32Array {
  const audio = realSpeechWithPauses();
  const out = new Float32Array(count * WIDTH);
  for (let i = 0; i < count; i++) {
    if (i > 0) out.set(audio.subarray(i * W - 64, i * W), i * WIDTH);
    out.set(audio.subarray(i * W, (i + 1) * W), i * WIDTH + 64);
  }
  return out;
}

let restore: ((line: string) => void) | undefined;
/** Collects the log lines written until the test ends. */
function captureLog(): string[] {
  const lines: string[] = [];
  const previous = setLogSink((line) => lines.push(line));
  restore ??= previous;
  return lines;
}
afterEach(() => {
  if (restore) setLogSink(restore);
  restore = undefined;
});

describe("the Silero sequence graph", () => {
  test("does give the published graph's probabilities and final state for 300 windows of speech in one run", async () => {
    const rebuilt = sileroSequenceModel(readFileSync(sileroModel()));
    if (rebuilt.bytes === undefined) throw new Error(rebuilt.reason);
    const sequence = await ort.InferenceSession.create(rebuilt.bytes, { intraOpNumThreads: 1 });
    const published = await ort.InferenceSession.create(sileroModel(), { intraOpNumThreads: 1 });
    try {
      expect([...sequence.inputNames]).toEqual(["input", "state"]);
      expect([...sequence.outputNames]).toEqual(["output", "stateN"]);
      const count = 300;
      const inputs = windowsWithContext(count);
      const start = new Float32Array(256).map((_, i) => Math.sin(i) * 0.1); // a state that is not zero
      const sr = new ort.Tensor("int64", BigInt64Array.of(16000n), []);
      let state = new ort.Tensor("float32", start, [2, 1, 128]);
      const expected: number[] = [];
      for (let i = 0; i < count; i++) {
        const input = new ort.Tensor("float32", inputs.slice(i * WIDTH, (i + 1) * WIDTH), [1, WIDTH]);
        const out = await published.run({ input, state, sr });
        expected.push((out.output!.data as Float32Array)[0]!);
        state = out.stateN as typeof state;
      }
      const out = await sequence.run({
        input: new ort.Tensor("float32", inputs, [count, WIDTH]),
        state: new ort.Tensor("float32", start, [2, 1, 128]),
      });
      expect(out.output!.dims).toEqual([count, 1]);
      expect(out.stateN!.dims).toEqual([2, 1, 128]);
      const got = out.output!.data as Float32Array;
      for (let i = 0; i < count; i++) expect(Math.abs(got[i]! - expected[i]!)).toBeLessThan(1e-5);
      expect(Math.max(...expected)).toBeGreaterThan(0.5); // speech was in it
      const finalState = out.stateN!.data as Float32Array;
      const want = state.data as Float32Array;
      for (let i = 0; i < 256; i++) expect(Math.abs(finalState[i]! - want[i]!)).toBeLessThan(1e-5);
    } finally {
      await Promise.all([sequence.release(), published.release()]);
    }
  });

  test("does serve the real pack through the sequence graph, without falling back", async () => {
    const warnings = captureLog();
    const detector = await loadSilero(sileroModel(), "silero-vad");
    await detector.release();
    expect(warnings.filter((l) => l.includes("window by window"))).toEqual([]);
  });

  test("does refuse another graph with Silero's inputs and outputs, and score it window by window", async () => {
    // input [N, 576], state [2, N, 128], sr → output [N, 1] (the mean of each window), stateN = state.
    const g = new GraphBuilder("not_silero");
    const input = g.input("input", "float32", ["N", WIDTH]);
    const state = g.input("state", "float32", [2, "N", 128]);
    g.input("sr", "int64", []);
    g.output(g.op("ReduceMean", [input], { axes: [1], keepdims: 1 }), "output");
    g.output(g.op("Identity", [state]), "stateN");
    const dir = tempDir("sawt-silero-other-");
    const path = join(dir.path, "silero_vad.onnx");
    writeFileSync(path, g.toModel({ opset: 17 }));
    expect(sileroSequenceModel(readFileSync(path))).toEqual({
      reason: "no If on the sample rate with input and state",
    });
    const warnings = captureLog();
    const detector = await loadSilero(path, "other");
    try {
      expect(warnings.some((l) => l.includes("silero scored window by window") && l.includes("no If"))).toBe(true);
      const window = new Float32Array(W).fill(0.25);
      // Scored through the published-graph path: the mean of context (zeros) and window.
      expect((await detector.createStream().probabilities!([window, window]))[0]).toBeCloseTo((0.25 * W) / WIDTH, 5);
    } finally {
      await detector.release();
      dir.remove();
    }
  });
});
