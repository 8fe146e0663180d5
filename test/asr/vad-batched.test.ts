/**
 * Issue #19 acceptance 3, correctness half: the real Silero VAD v5 scores a chunk of windows in
 * one run of its rebuilt sequence graph (src/asr/vad/silero-sequence.ts), and on a minute of real
 * speech with pauses that gives the same probabilities as scoring window by window (the path
 * before the batching) and as a plain onnxruntime-node loop over the published graph on the main
 * thread (within 1e-5), and the same speech segments as both.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { InferenceSession } from "onnxruntime-node";
import { segmentSpeech } from "../../src/asr/vad/endpointer.ts";
import { SpeechSegmenter } from "../../src/asr/vad/segmenter.ts";
import { loadSilero } from "../../src/asr/vad/silero.ts";
import type { VoiceActivityDetector } from "../../src/asr/recognizer.ts";
import { loadOrt } from "../../src/onnx/ort.ts";
import { perWindowDetector, realSpeechWithPauses, sileroModel } from "./support.ts";

const W = 512;
// About 60 s: the recording three times with pauses of 2, 3.5 and 1 s around it.
const audio = realSpeechWithPauses();
const windows = Array.from({ length: Math.floor(audio.length / W) }, (_, i) => audio.subarray(i * W, (i + 1) * W));

describe("Silero VAD scored a chunk per call", () => {
  let detector: VoiceActivityDetector;
  beforeAll(async () => {
    detector = await loadSilero(sileroModel(), "silero-vad");
  });
  afterAll(async () => {
    await detector.release();
  });

  test("does give the per-window probabilities and segments when a minute of speech is batched", async () => {
    const batched = await detector.createStream().probabilities!(windows);
    const single = detector.createStream();
    const one: number[] = [];
    for (const window of windows) one.push(await single.probability(window));
    expect(batched).toEqual(one);

    const fast = await segmentSpeech(audio, detector);
    const slow = await segmentSpeech(audio, perWindowDetector(detector));
    expect(fast.map(({ start, end }) => [start, end])).toEqual(slow.map(({ start, end }) => [start, end]));
    expect(fast.length).toBeGreaterThanOrEqual(3);
  });

  test("does match a plain onnxruntime loop when the same windows run on the main thread", async () => {
    const ort = await loadOrt();
    const session = await ort.InferenceSession.create(sileroModel(), { intraOpNumThreads: 1 });
    try {
      let state = new ort.Tensor("float32", new Float32Array(256), [2, 1, 128]);
      const sr = new ort.Tensor("int64", BigInt64Array.from([16000n]), []);
      const context = new Float32Array(64);
      const raw: number[] = [];
      for (const window of windows) {
        const input = new Float32Array(576);
        input.set(context);
        input.set(window, 64);
        context.set(window.subarray(W - 64));
        const out: InferenceSession.OnnxValueMapType = await session.run({
          input: new ort.Tensor("float32", input, [1, 576]),
          state,
          sr,
        });
        state = out.stateN as typeof state;
        raw.push((out.output!.data as Float32Array)[0]!);
      }
      const batched = await detector.createStream().probabilities!(windows);
      for (let i = 0; i < raw.length; i++) expect(Math.abs(batched[i]! - raw[i]!)).toBeLessThan(1e-5);
      // The segments of the raw loop's probabilities are the service's segments.
      const segmenter = new SpeechSegmenter();
      const rawSpans = [...raw.flatMap((p) => segmenter.push(p)), ...segmenter.finish(audio.length)];
      const served = await segmentSpeech(audio, detector);
      expect(served.map(({ start, end }) => ({ start, end }))).toEqual(
        rawSpans.map(({ start, end }) => ({ start, end })),
      );
    } finally {
      await session.release();
    }
  });
});
