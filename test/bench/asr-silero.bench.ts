/**
 * ASR with the real Silero pack over the raw recogniser (issue #19, acceptance 3): a minute of real
 * speech with pauses through Sawt's ASR service (Silero VAD pack + the constructed Conformer-CTC of
 * realistic cost, test/support/models/conformer-ctc.ts) against the raw recogniser on the same
 * audio, interleaved, medians. Also where the service's time goes, and a check that batched VAD
 * gives the per-window path's segments. Run: `bun run bench -- asr-silero`.
 */
import "../support/families.ts";
import type { InferenceSession, Tensor } from "onnxruntime-node";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nemoFbank } from "../../src/audio/features/fbank.ts";
import { decodePieces, policyOptions } from "../../src/asr/segmentation/policy.ts";
import { segmentSpeech } from "../../src/asr/vad/endpointer.ts";
import { loadSilero } from "../../src/asr/vad/silero.ts";
import { encodeWav } from "../../src/audio/wav.ts";
import { setLogSink } from "../../src/log/logger.ts";
import { chooseDevice } from "../../src/onnx/devices.ts";
import { loadOrt } from "../../src/onnx/ort.ts";
import { useDevice } from "../../src/onnx/sessions.ts";
import {
  installSilero,
  perWindowDetector,
  readyEngine,
  realSpeech,
  realSpeechWithPauses,
  sileroModel,
} from "../asr/support.ts";
import { writeConformerCtcPack } from "../support/models/conformer-ctc.ts";
import { median } from "./tts-support.ts";

const RUNS = 5;
const WINDOW_SECONDS = 30;

setLogSink(() => {});
// 60 s of real speech (the 20 s recording three times) with pauses of 2, 3.5, 1 and 2 s around it.
const audio = realSpeechWithPauses();
const speechSeconds = (3 * realSpeech().length) / 16000;
const seconds = audio.length / 16000;

const dir = mkdtempSync(join(tmpdir(), "sawt-asr-silero-bench-"));
try {
  const device = await chooseDevice("cpu", 0);
  useDevice(device); // as the server does at start: the recogniser gets the machine's intra-op threads
  const pack = await writeConformerCtcPack(join(dir, "conformer-ctc"));
  installSilero(dir);
  const engine = await readyEngine(dir);

  const ort = await loadOrt();
  // Sawt's session settings (src/onnx/session-worker.ts), so the ratio is the serving layer's
  // alone: the same threads, graph optimisation and no spinning, on the main thread without a worker.
  const raw = await ort.InferenceSession.create(pack.modelPath, {
    intraOpNumThreads: device.intraOpThreads,
    interOpNumThreads: 1,
    graphOptimizationLevel: "all",
    extra: { session: { intra_op: { allow_spinning: "0" }, inter_op: { allow_spinning: "0" } } },
  });
  const runModel = (samples: Float32Array) => {
    const f = nemoFbank(samples);
    return raw.run({
      audio_signal: new ort.Tensor("float32", f.data, [1, 80, f.nFrames]),
      length: new ort.Tensor("int64", BigInt64Array.from([BigInt(f.validFrames)]), [1]),
    });
  };
  /** The raw recogniser: NeMo features of the whole minute, then one `session.run` on all of it. */
  const rawRecognise = async (): Promise<Tensor> =>
    ((await runModel(audio)) as InferenceSession.OnnxValueMapType).logprobs!;
  const service = () => engine.service.transcribeSamples(audio);
  // The REST path: the same audio as a 16 kHz WAV upload (read in-process; longer than a request's
  // reservation, so the VAD runs as it is read and each speech piece is transcribed on its own).
  const wavPath = join(dir, "speech.wav");
  writeFileSync(wavPath, encodeWav(audio, 16000));
  const upload = () => engine.service.transcribeFile(wavPath);

  // The service's VAD, re-created alone (same model file, same 1-thread session) to time it apart.
  const vad = await loadSilero(sileroModel(), "silero-vad");
  const perWindow = perWindowDetector(vad);
  const spanOptions = { maxSegmentSeconds: WINDOW_SECONDS };
  const spans = await segmentSpeech(audio, vad, spanOptions);
  const oneByOne = await segmentSpeech(audio, perWindow, spanOptions);
  const same =
    JSON.stringify(spans.map((s) => [s.start, s.end])) === JSON.stringify(oneByOne.map((s) => [s.start, s.end]));
  if (!same) throw new Error("batched and per-window VAD segments differ");
  const pieces = decodePieces(spans, audio.length, policyOptions(WINDOW_SECONDS));

  const time = async (fn: () => Promise<unknown> | unknown): Promise<number> => {
    const started = performance.now();
    await fn();
    return performance.now() - started;
  };
  /** The raw recogniser on each stretch in turn: the service's model work without VAD or serving. */
  const rawOn = (stretches: readonly { start: number; end: number }[]) => async () => {
    for (const p of stretches) await runModel(audio.subarray(p.start, p.end));
  };
  const contenders = {
    whole: rawRecognise,
    pieces: rawOn(pieces),
    segments: rawOn(spans),
    service,
    upload,
  } as const;
  const t: Record<keyof typeof contenders | "vad" | "fbank", number[]> = {
    whole: [],
    pieces: [],
    segments: [],
    service: [],
    upload: [],
    vad: [],
    fbank: [],
  };
  const names = Object.keys(contenders) as (keyof typeof contenders)[];
  for (const name of names) await contenders[name]();
  for (let i = 0; i < RUNS; i++) {
    // Rotate the order so no contender always runs on a machine another just warmed or heated.
    for (let k = 0; k < names.length; k++) {
      const name = names[(i + k) % names.length]!;
      t[name].push(await time(contenders[name]));
    }
    t.vad.push(await time(() => segmentSpeech(audio, vad, spanOptions)));
    t.fbank.push(await time(() => pieces.map((p) => nemoFbank(audio.subarray(p.start, p.end)))));
  }
  await Promise.all([vad.release(), raw.release(), engine.release()]);

  const m = (name: keyof typeof t) => median(t[name]);
  const ms = (name: keyof typeof t) => m(name).toFixed(0);
  const over = (a: keyof typeof t, b: keyof typeof t) => (m(a) / m(b)).toFixed(2);
  const silent = seconds - speechSeconds;
  console.log(`## ASR with Silero VAD vs the raw recogniser (asr-silero.bench.ts)

${seconds.toFixed(1)} s of real speech with pauses (../shared/audio/en-speech-20s.wav three times, ${silent.toFixed(1)} s of
silence), the constructed Conformer-CTC of realistic cost (test/support/models/conformer-ctc.ts: 12 blocks at 256,
rel-pos attention, ${(pack.bytes / 1e6).toFixed(0)} MB, seeded random weights) and the real Silero VAD v5 pack; ${device.intraOpThreads} intra-op
threads for the recogniser (as the server chooses) and Sawt's session settings on the raw side too; medians of
${RUNS} runs in rotating order.

- **Service, samples**: \`transcribeSamples\` (a recording held whole; gRPC raw PCM): Silero VAD (its graph rebuilt
  to score a chunk of windows in one run, 1 thread) runs ahead while the segmentation policy's ${pieces.length} pieces (each ≤ ${WINDOW_SECONDS} s, from ${spans.length}
  speech segments) are decoded in the recogniser's worker (NeMo features, model, greedy CTC), then stitched.
- **Service, WAV upload**: \`transcribeFile\` of the same audio as a 16 kHz WAV (REST's path): read in-process;
  longer than a request's reservation, so the VAD cuts it into its ${spans.length} speech segments as it is read (running
  ahead within the reservation) and each is transcribed on its own.
- **Raw floor**: NeMo features + onnxruntime-node \`session.run\` on exactly the stretches that path decodes, main
  thread: the path's model work minus VAD, worker trips, CTC decoding and stitching.
- **Raw, whole recording**: NeMo features of all ${seconds.toFixed(0)} s + one \`session.run\` on it, nothing else. Attention is
  quadratic in length, so one ${seconds.toFixed(0)} s call costs more than short pieces: a ratio below 1 against it is the
  segmentation's gain, not serving overhead.

| path | service ms | raw floor ms | service / raw floor | service / raw whole (${ms("whole")} ms) |
|---|---:|---:|---:|---:|
| samples, ${pieces.length} policy pieces | ${ms("service")} | ${ms("pieces")} | **${over("service", "pieces")}** | ${over("service", "whole")} |
| WAV upload, ${spans.length} speech segments | ${ms("upload")} | ${ms("segments")} | **${over("upload", "segments")}** | ${over("upload", "whole")} |

Parts, each timed alone on the same audio: Silero VAD ${ms("vad")} ms for ${Math.floor(audio.length / 512)} windows
(${((m("vad") / seconds) * 60).toFixed(0)} ms per audio minute; scoring window by window gives the same ${spans.length} segments, checked);
NeMo features of the ${pieces.length} pieces ${ms("fbank")} ms; the model on them ${(m("pieces") - m("fbank")).toFixed(0)} ms.
`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
