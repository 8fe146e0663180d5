/**
 * Moonshine (real model: Moonshine tiny, English, int8; the built-in recogniser) on the real 20 s
 * English recording. In one process, round after round in turn: raw onnxruntime running the same
 * greedy decoding in-process (no worker sessions, no service), Sawt's recogniser, and the whole ASR
 * service; the ratios are taken per round. Then `sawt serve` from this checkout with its defaults:
 * resident memory 3 s after /ready with the built-in recogniser and with `asr.builtin = false`
 * (servers started in turn), and rounds of 4 concurrent REST transcriptions with the memory they
 * take. Needs the shared recording (or Sawt's own speech) and the pinned model (test fixtures).
 * Run: `bun run bench -- moonshine`.
 */
import "../support/families.ts";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { InferenceSession, Tensor } from "onnxruntime-node";
import { buildAsrEngine } from "../../src/asr/loader.ts";
import { configureMoonshine } from "../../src/asr/moonshine/config.ts";
import { MoonshineRecognizer, moonshineTokenBudget } from "../../src/asr/moonshine/pipeline.ts";
import { decodeAudioFile } from "../../src/audio/decode.ts";
import { loadConfig } from "../../src/config/config.ts";
import { log, setLogSink } from "../../src/log/logger.ts";
import { packFiles } from "../../src/models/pack.ts";
import { loadOrt } from "../../src/onnx/ort.ts";
import { argmax } from "../../src/onnx/runner.ts";
import { currentDevice } from "../../src/onnx/sessions.ts";
import { Admission } from "../../src/serving/admission.ts";
import { englishSpeechWav, installMoonshineTiny } from "../support/models/moonshine.ts";
import { idleServer, spread, timeRounds, transcriptionLoad } from "./asr-serve.ts";
import { median } from "./closed-loop.ts";

const ROUNDS = 7;
const SERVER_PAIRS = 3;
const LOAD = { clients: 4, perRound: 8, rounds: 6 };

setLogSink(() => {});
const dir = mkdtempSync(join(tmpdir(), "sawt-moonshine-bench-"));
try {
  const packDir = installMoonshineTiny(dir);
  const config = configureMoonshine(packFiles("moonshine-tiny-en", packDir, readdirSync(packDir).sort()));
  const { samples } = await decodeAudioFile(englishSpeechWav(), { maxDurationSeconds: 60, timeoutMs: 30_000 });
  const seconds = samples.length / 16000;
  const ort = await loadOrt();

  // Raw onnxruntime: the same greedy loop on in-process sessions with the thread count Sawt's
  // worker sessions get, so the ratio shows the serving layer, not a threading difference; it
  // fetches only what the next step needs, as Sawt does.
  const options = { intraOpNumThreads: currentDevice().intraOpThreads };
  const encoder = await ort.InferenceSession.create(config.encoderPath, options);
  const decoder = await ort.InferenceSession.create(config.decoderPath, options);
  const selfFetches = ["logits"];
  for (let l = 0; l < config.layers; l++)
    for (const kind of ["key", "value"]) selfFetches.push(`present.${l}.decoder.${kind}`);
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
      // After the first step only the logits and the self-attention caches are needed back.
      const out = await decoder.run(feeds, step > 0 ? selfFetches : decoder.outputNames);
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

  const recognizer = await MoonshineRecognizer.load(config, "moonshine-tiny-en");
  const admission = new Admission({
    name: "asr",
    concurrency: 1,
    maxQueue: 4,
    queueTimeoutMs: 60_000,
    busyDetail: "busy",
    timeoutDetail: "timeout",
  });
  const engine = await buildAsrEngine(
    loadConfig({ env: { SAWT_MODELS_DIR: dir, SAWT_DATA_DIR: join(dir, "data"), SAWT_ASR_BUILTIN: "false" } }),
    admission,
    log,
  );
  if (!engine.ok) throw new Error(engine.reason);
  const paths = {
    raw,
    recogniser: () => recognizer.recognize(samples),
    service: () => engine.service.transcribeSamples(samples),
  };
  const { ms, cpu } = await timeRounds(paths, ROUNDS);
  const text = (await recognizer.recognize(samples)).text;
  const segments = (await engine.service.transcribeSamples(samples)).segments.length;
  await Promise.all([recognizer.release(), engine.release(), decoder.release(), encoder.release()]);
  const ratio = (name: keyof typeof paths) => ms[name].map((v, i) => v / ms.raw[i]!);
  const cpuRatio = (name: keyof typeof paths) => cpu[name].map((v, i) => v / cpu.raw[i]!);

  // The server: the built-in recogniser is this pack, read from the fixture's pack folder.
  const modelMb = ["encoder_model.onnx", "decoder_model_merged.onnx"]
    .map((f) => statSync(join(packDir, f)).size / 2 ** 20)
    .reduce((a, b) => a + b, 0);
  mkdirSync(join(dir, "no-packs"));
  const serverEnv = (builtin: boolean) => ({
    SAWT_MODELS_DIR: join(dir, "no-packs"),
    SAWT_ASR_BUILTIN: String(builtin),
    SAWT_BUILTIN_ASR_DIR: dirname(packDir),
  });
  const idle = { on: [] as number[], off: [] as number[] };
  let health: Record<string, unknown> = {};
  for (let pair = 0; pair < SERVER_PAIRS; pair++) {
    for (const builtin of pair % 2 ? [true, false] : [false, true]) {
      const server = await idleServer(serverEnv(builtin));
      idle[builtin ? "on" : "off"].push(server.idleMb);
      if (builtin) health = server.health;
      await server.sawt.stop();
    }
  }
  const loaded = await idleServer(serverEnv(true));
  const load = await transcriptionLoad(loaded.sawt, readFileSync(englishSpeechWav()), LOAD);
  await loaded.sawt.stop();
  const allowance = median(idle.off) + 2 * modelMb + 40;

  const row = (name: keyof typeof paths) =>
    `| ${name} | ${median(ms[name]).toFixed(0)} | ${(median(ms[name]) / 1000 / seconds).toFixed(3)} | ${name === "raw" ? "1.00" : spread(ratio(name))} | ${median(cpu[name]).toFixed(0)} | ${name === "raw" ? "1.00" : spread(cpuRatio(name))} |`;
  console.log(`## Moonshine tiny, real model (moonshine.bench.ts)

${seconds.toFixed(1)} s of real English speech (\`en-speech-20s.wav\`), Moonshine tiny English int8 (the built-in
recogniser), greedy decoding, Bun ${Bun.version}, ${process.arch}, CPU execution provider, ${currentDevice().intraOpThreads}
intra-op thread(s) everywhere. ${ROUNDS} rounds after a warm-up; in each round raw, recogniser and service run once each
(in rotating order) and the ratios to raw are taken within the round: median (lowest–highest round); CPU is the
process's CPU time (all threads) over the run. "raw" runs the
same encoder and decoder steps on in-process onnxruntime sessions, fetching only what the next step needs;
"recogniser" is Sawt's Moonshine pipeline
(worker-thread sessions); "service" is the whole ASR service (segmentation, ${segments} segment(s) here, then the
recogniser). Text: «${text}»

| path | ms (median) | real-time factor | / raw, median (range) | CPU ms (median) | CPU / raw, median (range) |
|---|---:|---:|---:|---:|---:|
${(["raw", "recogniser", "service"] as const).map(row).join("\n")}

\`sawt serve\` from source with its defaults (asr.concurrency 2), no packs; RSS 3 s after \`/ready\`, ${SERVER_PAIRS} servers
of each kind started in turn, median (range). Allowance (issue 38): RSS without the recogniser + 2 × its model files
(${modelMb.toFixed(1)} MB) + 40 MB.

| server | idle RSS (MB) |
|---|---:|
| \`asr.builtin = false\` | ${spread(idle.off, 0)} |
| built-in recogniser | ${spread(idle.on, 0)} |
| allowance | ${allowance.toFixed(0)} |

Built-in recogniser health (\`GET /v1/asr/health\`): \`${JSON.stringify(health.builtin_recognizer ?? null)}\`, resident memory per model
\`${JSON.stringify(health.resident_mb ?? "not reported")}\` (MB).

${LOAD.clients} closed-loop clients posting the recording to \`POST /v1/asr/audio/transcriptions\` (json), ${LOAD.rounds} rounds of
${LOAD.perRound} requests after a warm-up round: throughput ${spread(load.throughput)} requests/s per round, median (range);
RSS under the load up to ${load.peakMb.toFixed(0)} MB (sampled every 100 ms), ${load.afterMb.toFixed(0)} MB 3 s after it.
`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
