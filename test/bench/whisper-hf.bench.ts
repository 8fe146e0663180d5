/**
 * A Whisper-small-shaped recogniser in the Hugging Face layout (constructed: 12 layers, d = 768,
 * 80 mels, vocabulary 51,865, fp32, seeded weights; test/support/models/whisper-small.ts), the
 * shape of the Arabic Whisper fine-tunes customers install. In one process, round after round in
 * turn: raw onnxruntime running the same decoding in-process (encoder, then the merged decoder step
 * by step with its caches fed back, greedy), and Sawt's whisper-hf recogniser (worker-thread
 * sessions, timestamp rules, temperature fallback that never triggers here); ratios per round.
 * Then `sawt serve` with the pack and its defaults: resident memory idle and under 4 concurrent
 * transcriptions. Run: `bun run bench -- whisper-hf`.
 */
import "../support/families.ts";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Tensor } from "onnxruntime-node";
import { WHISPER_N_FRAMES, whisperLogMel } from "../../src/audio/features/whisper-mel.ts";
import { decodeAudioFile } from "../../src/audio/decode.ts";
import { configureHfWhisper } from "../../src/asr/whisper-hf/config.ts";
import { loadHfWhisper } from "../../src/asr/whisper-hf/model.ts";
import { WhisperRecognizer } from "../../src/asr/whisper/pipeline.ts";
import { setLogSink } from "../../src/log/logger.ts";
import { packFiles } from "../../src/models/pack.ts";
import { loadOrt } from "../../src/onnx/ort.ts";
import { argmax } from "../../src/onnx/runner.ts";
import { currentDevice } from "../../src/onnx/sessions.ts";
import { englishSpeechWav } from "../support/models/moonshine.ts";
import { FORCED_TEXT_TOKENS, WHISPER_SMALL, whisperSmallPackDir } from "../support/models/whisper-small.ts";
import { idleServer, spread, timeRounds, transcriptionLoad } from "./asr-serve.ts";
import { median } from "./closed-loop.ts";

const ROUNDS = 5;
const LOAD = { clients: 4, perRound: 4, rounds: 2 };

setLogSink(() => {});
const dir = mkdtempSync(join(tmpdir(), "sawt-whisper-hf-bench-"));
try {
  const packDir = await whisperSmallPackDir();
  const config = configureHfWhisper(packFiles("whisper-small-shaped", packDir, readdirSync(packDir).sort()));
  const { samples } = await decodeAudioFile(englishSpeechWav(), { maxDurationSeconds: 60, timeoutMs: 30_000 });
  const seconds = samples.length / 16000;
  const ort = await loadOrt();
  const { meta } = config;
  const { layers, heads, headDim } = config.geometry;

  // Raw onnxruntime: in-process sessions with the thread count Sawt's worker sessions get.
  const options = { intraOpNumThreads: currentDevice().intraOpThreads };
  const encoder = await ort.InferenceSession.create(config.encoderPath, options);
  const decoder = await ort.InferenceSession.create(config.decoderPaths[0]!, options);
  const selfFetches = ["logits"];
  for (let l = 0; l < layers; l++)
    for (const kind of ["key", "value"]) selfFetches.push(`present.${l}.decoder.${kind}`);
  let rawSteps = 0;
  const raw = async () => {
    const mel = whisperLogMel(samples.subarray(0, WHISPER_N_FRAMES * 160), { nMels: meta.nMels });
    const { last_hidden_state: hidden } = await encoder.run({
      input_features: new ort.Tensor("float32", mel.data, [1, meta.nMels, mel.nFrames]),
    });
    let cache: Record<string, Tensor> = {};
    for (let l = 0; l < layers; l++)
      for (const part of ["decoder", "encoder"])
        for (const kind of ["key", "value"])
          cache[`past_key_values.${l}.${part}.${kind}`] = new ort.Tensor("float32", new Float32Array(0), [
            1,
            heads,
            0,
            headDim,
          ]);
    let ids = [...config.prompt];
    let offset = 0;
    for (let step = 0; offset + ids.length <= meta.nTextCtx; step++) {
      const feeds = {
        input_ids: new ort.Tensor("int64", BigInt64Array.from(ids, BigInt), [1, ids.length]),
        encoder_hidden_states: hidden!,
        use_cache_branch: new ort.Tensor("bool", Uint8Array.of(step > 0 ? 1 : 0), [1]),
        ...cache,
      };
      // After the first step only the logits and the self-attention caches are needed back.
      const out = await decoder.run(feeds, step > 0 ? selfFetches : decoder.outputNames);
      const logits = out.logits!.data as Float32Array;
      const token = argmax(logits, logits.length - out.logits!.dims[2]!, logits.length);
      offset += ids.length;
      rawSteps = step + 1;
      if (token === meta.eot) break;
      const next: Record<string, Tensor> = {};
      for (const name of Object.keys(cache))
        next[name] =
          name.includes(".encoder.") && step > 0 ? cache[name]! : out[name.replace("past_key_values", "present")]!;
      cache = next;
      ids = [token];
    }
  };

  const recognizer = new WhisperRecognizer("whisper-small-shaped", "whisper-hf", await loadHfWhisper(config, "bench"));
  const paths = { raw, recogniser: () => recognizer.recognize(samples) };
  const { ms, cpu } = await timeRounds(paths, ROUNDS);
  const result = await recognizer.recognize(samples);
  await Promise.all([recognizer.release(), decoder.release(), encoder.release()]);
  const ratios = ms.recogniser.map((v, i) => v / ms.raw[i]!);
  const cpuRatios = cpu.recogniser.map((v, i) => v / cpu.raw[i]!);

  const models = join(dir, "models");
  mkdirSync(join(models, "whisper-small-shaped"), { recursive: true });
  for (const file of readdirSync(packDir)) symlinkSync(join(packDir, file), join(models, "whisper-small-shaped", file));
  // Four whisper-small requests at once queue for minutes on a slow machine: no 504 at 60 s.
  const server = await idleServer({
    SAWT_MODELS_DIR: models,
    SAWT_ASR_BUILTIN: "false",
    SAWT_ASR_QUEUE_TIMEOUT_MS: "600000",
  });
  const load = await transcriptionLoad(server.sawt, readFileSync(englishSpeechWav()), LOAD);
  await server.sawt.stop();

  const { layers: l, dModel, heads: h, ffn, vocab } = WHISPER_SMALL;
  console.log(`## Whisper-small-shaped whisper-hf recogniser (whisper-hf.bench.ts)

A constructed Hugging Face layout Whisper of Whisper-small's shape (${l} + ${l} layers, d = ${dModel}, ${h} heads, MLP ${ffn},
${meta.nMels} mels, vocabulary ${vocab}; fp32, seeded weights, merged decoder; test/support/models/whisper-small.ts) on
${seconds.toFixed(1)} s of audio: the encoder over the 30 s window, then ${rawSteps} decoder steps (the 3-token prompt, then
${FORCED_TEXT_TOKENS} text tokens between two timestamps and the end: the weights are random, so the logits are pushed to
a fixed sequence; every step runs the whole decoder). Bun ${Bun.version}, ${process.arch}, CPU, ${currentDevice().intraOpThreads} intra-op
thread(s) everywhere. ${ROUNDS} rounds after a warm-up, raw and recogniser once each per round in turn, ratio within the
round: median (lowest–highest round); CPU is the process's CPU time (all threads) over the run. "raw" is onnxruntime in-process on the same log-mel features, greedy,
fetching only what the next step needs;
"recogniser" is Sawt's whisper-hf recogniser (log-mel, worker-thread sessions, timestamp rules, kept temperature
${result.decoding?.temperature}: no fallback).

| path | ms (median) | real-time factor | / raw, median (range) | CPU ms (median) | CPU / raw, median (range) |
|---|---:|---:|---:|---:|---:|
| raw onnxruntime | ${median(ms.raw).toFixed(0)} | ${(median(ms.raw) / 1000 / seconds).toFixed(3)} | 1.00 | ${median(cpu.raw).toFixed(0)} | 1.00 |
| recogniser | ${median(ms.recogniser).toFixed(0)} | ${(median(ms.recogniser) / 1000 / seconds).toFixed(3)} | ${spread(ratios)} | ${median(cpu.recogniser).toFixed(0)} | ${spread(cpuRatios)} |

\`sawt serve\` from source with the pack and its defaults (asr.concurrency 2; \`asr.builtin = false\`, queue timeout 600 s): RSS 3 s after
\`/ready\` ${server.idleMb.toFixed(0)} MB; ${LOAD.clients} closed-loop clients posting the recording, ${LOAD.rounds} rounds of ${LOAD.perRound} requests after a
warm-up round: throughput ${spread(load.throughput, 3)} requests/s, RSS under the load up to ${load.peakMb.toFixed(0)} MB, ${load.afterMb.toFixed(0)} MB 3 s after it.
Resident memory per model (\`GET /v1/asr/health\` resident_mb, idle): \`${JSON.stringify(server.health.resident_mb ?? "not reported")}\`
`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
