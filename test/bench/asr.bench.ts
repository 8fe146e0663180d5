/**
 * ASR serving overhead: the service's time to transcribe 25 s of speech (VAD, features, model,
 * decoding, stitching) over the raw `session.run` of the same model on the same features, for the
 * constructed NeMo CTC recogniser and Whisper pair, plus where the time goes. The constructed
 * models are tiny, so the ratio shows the serving layer's own cost, which a real model's larger
 * session time then dilutes. Run: `bun test/bench/asr.bench.ts`.
 */
import "../support/families.ts";
import { median, timeRuns } from "./tts-support.ts";
import { sileroModel } from "../asr/support.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildAsrEngine } from "../../src/asr/loader.ts";
import { nemoFbank } from "../../src/audio/features/fbank.ts";
import { whisperLogMel } from "../../src/audio/features/whisper-mel.ts";
import { f32, i64, openSession, ortModule } from "../../src/onnx/runner.ts";
import { createEnergyDetector } from "../../src/asr/vad/energy.ts";
import { segmentSpeech } from "../../src/asr/vad/endpointer.ts";
import { loadSilero } from "../../src/asr/vad/silero.ts";
import { loadConfig } from "../../src/config/config.ts";
import { log, setLogSink } from "../../src/log/logger.ts";
import { Admission } from "../../src/serving/admission.ts";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { writeWhisperPack } from "../support/models/whisper.ts";

const RUNS = 7;

/** Median wall time (ms) of `run` over RUNS runs after one warm-up. */
const medianTime = async (run: () => Promise<unknown>): Promise<number> => median(await timeRuns(RUNS, 1, run));

/** Silero on `audio` (ms), on the real model beside the checkout (missing is an error, not a skip). */
async function sileroTime(audio: Float32Array): Promise<number> {
  const vad = await loadSilero(sileroModel(), "silero");
  try {
    return await medianTime(() => segmentSpeech(audio, vad));
  } finally {
    await vad.release();
  }
}

setLogSink(() => {});
const dir = mkdtempSync(join(tmpdir(), "sawt-asr-bench-"));
try {
  const words = "سلام عليكم ورحمة الله وبركاته ";
  let text = "";
  while (letterToneAudio(text + words).length < 25 * 16000) text += words;
  const audio = letterToneAudio(text.trim());
  const seconds = audio.length / 16000;

  await writeToneCtcPack(join(dir, "ctc", "tone-ctc"));
  const whisper = await writeWhisperPack(join(dir, "whisper", "whisper"), {
    rows: ["السلام عليكم ورحمة الله"],
    bands: [[0, 8000]],
  });
  await ortModule();
  const admission = () =>
    new Admission({
      name: "asr",
      concurrency: 1,
      maxQueue: 4,
      queueTimeoutMs: 60_000,
      busyDetail: "busy",
      timeoutDetail: "timeout",
    });
  const engine = async (models: string) => {
    const built = await buildAsrEngine(
      loadConfig({ env: { SAWT_MODELS_DIR: models, SAWT_DATA_DIR: join(dir, "data") } }),
      admission(),
      log,
    );
    if (!built.ok) throw new Error(built.reason);
    return built;
  };

  const ctc = await engine(join(dir, "ctc"));
  const ctcSession = (await openSession(join(dir, "ctc", "tone-ctc", "model.onnx"))).session;
  const pieces = await segmentSpeech(audio, createEnergyDetector());
  const features = pieces.map((p) => nemoFbank(p.samples, { normalize: "none" }));
  const ctcRaw = await medianTime(async () => {
    for (const f of features)
      await ctcSession.run({ audio_signal: f32(f.data, [1, 80, f.nFrames]), length: i64([f.validFrames], [1]) });
  });
  const ctcService = await medianTime(() => ctc.service.transcribeSamples(audio));
  const vad = await medianTime(() => segmentSpeech(audio, createEnergyDetector()));
  const fbank = await medianTime(async () => pieces.map((p) => nemoFbank(p.samples, { normalize: "none" })));

  const wh = await engine(join(dir, "whisper"));
  const encoder = (await openSession(whisper.encoderPath)).session;
  const mels = pieces.map((p) => whisperLogMel(p.samples, { nMels: 80 }));
  const whisperRaw = await medianTime(async () => {
    for (const mel of mels) await encoder.run({ mel: f32(mel.data, [1, 80, mel.nFrames]) });
  });
  const whisperService = await medianTime(() => wh.service.transcribeSamples(audio));
  const melTime = await medianTime(async () => pieces.map((p) => whisperLogMel(p.samples, { nMels: 80 })));
  const silero = await sileroTime(audio);

  console.log(`## ASR serving overhead (asr.bench.ts)

${seconds.toFixed(1)} s of constructed tone speech in ${pieces.length} VAD segments (energy splitter), median of ${RUNS} runs,
Bun ${Bun.version}, ${process.arch}, CPU execution provider. "raw" is \`session.run\` alone on precomputed
features (CTC: the model; Whisper: the encoder, the decoder steps being part of decoding).

| recogniser | service ms | raw session.run ms | service / raw | features ms | VAD ms | real-time factor |
|---|---:|---:|---:|---:|---:|---:|
| NeMo CTC (constructed) | ${ctcService.toFixed(1)} | ${ctcRaw.toFixed(2)} | ${(ctcService / ctcRaw).toFixed(1)} | ${fbank.toFixed(1)} (fbank) | ${vad.toFixed(1)} | ${(ctcService / 1000 / seconds).toExponential(2)} |
| Whisper (constructed) | ${whisperService.toFixed(1)} | ${whisperRaw.toFixed(2)} | ${(whisperService / whisperRaw).toFixed(1)} | ${melTime.toFixed(1)} (log-mel, 30 s windows) | ${vad.toFixed(1)} | ${(whisperService / 1000 / seconds).toExponential(2)} |

Silero VAD v5 (real model) on the same audio: ${silero.toFixed(1)} ms (${((seconds * 16000) / 512).toFixed(0)} windows of 32 ms, real-time factor ${(silero / 1000 / seconds).toExponential(2)}).

With a tiny model the serving layer is mostly feature extraction (see the features table) and VAD;
on a real recogniser the session time dominates and the ratio approaches 1.
`);
  await Promise.all([ctc.release(), wh.release(), ctcSession.release(), encoder.release()]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
