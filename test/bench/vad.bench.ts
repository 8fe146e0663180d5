/**
 * Silero VAD cost (issue #19, acceptance 3): milliseconds of VAD per minute of real speech with
 * pauses (/work/shared/audio, three times with silences), for (a) a direct onnxruntime-node loop
 * of the published graph on the main thread, 1 intra-op thread, (b) Sawt's segmentation as built
 * (the graph rebuilt to score a chunk of windows in one run, src/asr/vad/silero-sequence.ts, in its
 * worker, 1 thread), (c) the same detector asked one window per worker call (the path before).
 * Runs alternate; medians are reported, and the segments are checked equal.
 */
import "../support/families.ts";
import type { InferenceSession } from "onnxruntime-node";
import type { VoiceActivityDetector } from "../../src/asr/recognizer.ts";
import { segmentSpeech } from "../../src/asr/vad/endpointer.ts";
import { loadSilero } from "../../src/asr/vad/silero.ts";
import { loadOrt } from "../../src/onnx/ort.ts";
import { perWindowDetector, realSpeechWithPauses, sileroModel } from "../asr/support.ts";
import { median } from "./tts-support.ts";

const RUNS = 5;
const W = 512;
const audio = realSpeechWithPauses();
const minutes = audio.length / 16000 / 60;

const ort = await loadOrt();
const raw = await ort.InferenceSession.create(sileroModel(), { intraOpNumThreads: 1, interOpNumThreads: 1 });
async function rawLoop(): Promise<void> {
  let state = new ort.Tensor("float32", new Float32Array(256), [2, 1, 128]);
  const sr = new ort.Tensor("int64", BigInt64Array.from([16000n]), []);
  const input = new Float32Array(576);
  for (let at = 0; at + W <= audio.length; at += W) {
    input.copyWithin(0, 512, 576);
    input.set(audio.subarray(at, at + W), 64);
    const out: InferenceSession.OnnxValueMapType = await raw.run({
      input: new ort.Tensor("float32", input.slice(), [1, 576]),
      state,
      sr,
    });
    state = out.stateN as typeof state;
  }
}

const detector = await loadSilero(sileroModel(), "silero-vad");
const perWindow = perWindowDetector(detector);
const spans = async (d: VoiceActivityDetector) =>
  (await segmentSpeech(audio, d)).map((p) => `${p.start}-${p.end}`).join(",");
if ((await spans(detector)) !== (await spans(perWindow))) throw new Error("batched and per-window segments differ");

const time = async (fn: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await fn();
  return performance.now() - started;
};
const t = { raw: [] as number[], batched: [] as number[], perWindow: [] as number[] };
await rawLoop();
for (let i = 0; i < RUNS; i++) {
  t.raw.push(await time(rawLoop));
  t.batched.push(await time(() => segmentSpeech(audio, detector)));
  t.perWindow.push(await time(() => segmentSpeech(audio, perWindow)));
}
await detector.release();
await raw.release();

const perMinute = (values: number[]) => median(values) / minutes;
const floor = perMinute(t.raw);
const row = (label: string, values: number[]) =>
  `| ${label} | ${perMinute(values).toFixed(0)} | ${(perMinute(values) / floor).toFixed(2)} |`;
console.log(`## Silero VAD per minute of speech (vad.bench.ts)

Real Silero VAD v5 on ${(minutes * 60).toFixed(0)} s of real speech with pauses (512-sample windows at 16 kHz),
medians of ${RUNS} alternating runs, scaled to one audio minute. Batched and per-window give the same segments (checked).
Sawt scores a chunk of windows in one onnxruntime run of the published graph's own nodes rewired so
the LSTM takes the windows as a sequence (src/asr/vad/silero-sequence.ts; same probabilities as the
published graph, checked at load and by test/asr/vad-batched.test.ts), so it can beat the direct loop.

| path | VAD ms per audio minute | / direct loop |
|---|---:|---:|
${row("direct onnxruntime-node loop, main thread, 1 thread", t.raw)}
${row("Sawt as built: rebuilt graph, one run per chunk of windows", t.batched)}
${row("one worker call per window (before)", t.perWindow)}
`);
