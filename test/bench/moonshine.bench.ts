/**
 * Moonshine (real model: Moonshine tiny, English, int8) on the real 20 s English recording: the
 * service's real-time factor beside raw onnxruntime running the same greedy decoding in-process
 * (no worker sessions, no service), and the ratio between them. Needs the shared model and
 * recording beside the checkout. Run: `bun test/bench/moonshine.bench.ts`.
 */
import "../support/families.ts";
import { median, timeRuns } from "./tts-support.ts";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { InferenceSession, Tensor } from "onnxruntime-node";
import { buildAsrEngine } from "../../src/asr/loader.ts";
import { configureMoonshine } from "../../src/asr/moonshine/config.ts";
import { MoonshineRecognizer, moonshineTokenBudget } from "../../src/asr/moonshine/pipeline.ts";
import { argmax } from "../../src/onnx/runner.ts";
import { decodeAudioFile } from "../../src/audio/decode.ts";
import { loadConfig } from "../../src/config/config.ts";
import { log, setLogSink } from "../../src/log/logger.ts";
import { packFiles } from "../../src/models/pack.ts";
import { Admission } from "../../src/serving/admission.ts";
import { loadOrt } from "../../src/onnx/ort.ts";
import { currentDevice } from "../../src/onnx/sessions.ts";
import { englishSpeechWav, installMoonshineTiny } from "../support/models/moonshine.ts";

const RUNS = 3;

/** Median wall time (ms) of `run` over RUNS runs after one warm-up. */
const medianTime = async (run: () => Promise<unknown>): Promise<number> => median(await timeRuns(RUNS, 1, run));

setLogSink(() => {});
const dir = mkdtempSync(join(tmpdir(), "sawt-moonshine-bench-"));
try {
  const packDir = installMoonshineTiny(dir);
  const config = configureMoonshine(packFiles("moonshine-tiny-en", packDir, readdirSync(packDir).sort()));
  const { samples } = await decodeAudioFile(englishSpeechWav(), { maxDurationSeconds: 60, timeoutMs: 30_000 });
  const seconds = samples.length / 16000;
  const ort = await loadOrt();

  // Raw onnxruntime: the same greedy loop on in-process sessions with the thread count Sawt's
  // worker sessions get, so the ratio shows the serving layer, not a threading difference.
  const options = { intraOpNumThreads: currentDevice().intraOpThreads };
  const encoder = await ort.InferenceSession.create(config.encoderPath, options);
  const decoder = await ort.InferenceSession.create(config.decoderPath, options);
  const raw = async () => {
    const { last_hidden_state: hidden } = await encoder.run({
      input_values: new ort.Tensor("float32", samples, [1, samples.length]),
    });
    let cache: Record<string, Tensor> = {};
    for (let l = 0; l < config.layers; l++) {
      for (const part of ["decoder", "encoder"])
        for (const kind of ["key", "value"])
          cache[`past_key_values.${l}.${part}.${kind}`] = new ort.Tensor("float32", new Float32Array(0), [
            1,
            config.heads,
            0,
            config.headDim,
          ]);
    }
    let token = config.vocabulary.bos;
    const budget = moonshineTokenBudget(seconds, config.language);
    for (let step = 0; step <= budget; step++) {
      const feeds: InferenceSession.FeedsType = {
        input_ids: new ort.Tensor("int64", BigInt64Array.of(BigInt(token)), [1, 1]),
        encoder_hidden_states: hidden!,
        use_cache_branch: new ort.Tensor("bool", Uint8Array.of(step > 0 ? 1 : 0), [1]),
        ...cache,
      };
      const out = await decoder.run(feeds);
      const logits = out.logits!.data as Float32Array;
      token = argmax(logits, logits.length - out.logits!.dims[2]!, logits.length);
      if (token === config.vocabulary.eos) break;
      const next: Record<string, Tensor> = {};
      for (const name of Object.keys(cache))
        next[name] =
          name.includes(".encoder.") && step > 0 ? cache[name]! : out[name.replace("past_key_values", "present")]!;
      cache = next;
    }
  };
  const rawMs = await medianTime(raw);

  const recognizer = await MoonshineRecognizer.load(config, "moonshine-tiny-en");
  const recognizerMs = await medianTime(() => recognizer.recognize(samples));
  await recognizer.release();

  const admission = new Admission({
    name: "asr",
    concurrency: 1,
    maxQueue: 4,
    queueTimeoutMs: 60_000,
    busyDetail: "busy",
    timeoutDetail: "timeout",
  });
  const engine = await buildAsrEngine(
    loadConfig({ env: { SAWT_MODELS_DIR: dir, SAWT_DATA_DIR: join(dir, "data") } }),
    admission,
    log,
  );
  if (!engine.ok) throw new Error(engine.reason);
  const serviceMs = await medianTime(() => engine.service.transcribeSamples(samples));
  const segments = (await engine.service.transcribeSamples(samples)).segments.length;
  await engine.release();

  const rtf = (ms: number) => (ms / 1000 / seconds).toFixed(3);
  console.log(`## Moonshine tiny, real model (moonshine.bench.ts)

${seconds.toFixed(1)} s of real English speech (\`en-speech-20s.wav\`), Moonshine tiny English int8, greedy decoding,
median of ${RUNS} runs, Bun ${Bun.version}, ${process.arch}, CPU execution provider. "raw" runs the same encoder
and decoder steps on in-process onnxruntime sessions; "recogniser" is Sawt's Moonshine pipeline (worker-thread
sessions, ${currentDevice().intraOpThreads} intra-op thread(s) for both); "service" is the whole ASR service (segmentation,
${segments} segment(s) here, then the recogniser: fewer tokens per segment make it cheaper than one whole decode).

| path | ms | real-time factor | / raw |
|---|---:|---:|---:|
| raw onnxruntime | ${rawMs.toFixed(0)} | ${rtf(rawMs)} | 1.00 |
| recogniser | ${recognizerMs.toFixed(0)} | ${rtf(recognizerMs)} | ${(recognizerMs / rawMs).toFixed(2)} |
| service | ${serviceMs.toFixed(0)} | ${rtf(serviceMs)} | ${(serviceMs / rawMs).toFixed(2)} |

The recogniser's time over raw is the worker boundary: every decoder step sends the encoder output and the
cross-attention caches (about 13 MB for 20 s of audio) to the session's worker thread, where raw onnxruntime
reuses them in place. Keeping those tensors resident in the worker between steps would remove most of it.
`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
