/**
 * Phrase boosting's cost: the service's time to transcribe 25 s of tone speech with a phrase
 * list (100 phrases, one of them spoken) over the same call without one, on the constructed
 * NeMo CTC recogniser (greedy with prefix-beam branches) and RNNT transducer (greedy with
 * modified-beam branches), plus the cost of a list that matches nothing. Goal: a boosted
 * request costs at most 1.3× an unboosted one. The constructed models are tiny, so the search is
 * a far larger share of the time than on a real model: these ratios are an upper bound. The
 * tone transducer is run twice: as its tests build it (every frame close to a coin toss between
 * blank and 27 tokens) and with its joiner logits scaled as sure as a trained model is (the same
 * greedy text). The three calls are timed in turns, so a neighbour's load weighs on all alike.
 * Run: `bun run bench -- boost`.
 */
import "../support/families.ts";
import { median } from "./tts-support.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildAsrEngine } from "../../src/asr/loader.ts";
import type { Hotword } from "../../src/asr/types.ts";
import { loadConfig } from "../../src/config/config.ts";
import { log, setLogSink } from "../../src/log/logger.ts";
import { Admission } from "../../src/serving/admission.ts";
import { ortModule } from "../../src/onnx/runner.ts";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { writeToneTransducerPack } from "../support/models/transducer.ts";

const RUNS = 15;

/** Wall and CPU time (ms; CPU of every thread, onnxruntime's workers included) of one call. */
async function timed(run: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run();
  const used = process.cpuUsage(cpu);
  return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000 };
}

/**
 * Median wall and CPU time (ms) of each of `runs`, taken in turns (one of each per round, after
 * a warm-up round) so that a neighbour's load on a shared machine weighs on all of them alike.
 */
async function interleaved(runs: ReadonlyArray<() => Promise<unknown>>) {
  for (const run of runs) await run();
  const times = runs.map((): Array<{ wall: number; cpu: number }> => []);
  for (let round = 0; round < RUNS; round++) for (const [i, run] of runs.entries()) times[i]!.push(await timed(run));
  return times.map((all) => ({ wall: median(all.map((t) => t.wall)), cpu: median(all.map((t) => t.cpu)) }));
}

/** 99 phrases that are not spoken (letters of the tone vocabulary) and `spoken`. */
function phraseList(spoken: string): Hotword[] {
  const letters = [..."البتحدسعفقكلمنهوير"];
  const others = Array.from({ length: 99 }, (_, i) => ({
    phrase: `${letters[i % letters.length]}${letters[(i * 7 + 3) % letters.length]}${letters[(i * 5 + 1) % letters.length]}ز`,
    boost: 1.5,
  }));
  return [...others, { phrase: spoken, boost: 2 }];
}

setLogSink(() => {});
const dir = mkdtempSync(join(tmpdir(), "sawt-boost-bench-"));
try {
  const words = "سلام عليكم ورحمة الله وبركاته ";
  let text = "";
  while (letterToneAudio(text + words).length < 25 * 16000) text += words;
  const audio = letterToneAudio(text.trim());
  const seconds = audio.length / 16000;
  await writeToneCtcPack(join(dir, "ctc", "tone-ctc"));
  await writeToneTransducerPack(join(dir, "rnnt", "tone-rnnt"));
  await writeToneTransducerPack(join(dir, "rnnt-sure", "tone-rnnt"), { joinerScale: 12 });
  await ortModule();
  const engine = async (models: string) => {
    const admission = new Admission({
      name: "asr",
      concurrency: 1,
      maxQueue: 4,
      queueTimeoutMs: 60_000,
      busyDetail: "busy",
      timeoutDetail: "timeout",
    });
    const built = await buildAsrEngine(
      loadConfig({ env: { SAWT_MODELS_DIR: models, SAWT_DATA_DIR: join(dir, "data") } }),
      admission,
      log,
    );
    if (!built.ok) throw new Error(built.reason);
    return built;
  };
  const boosted = phraseList("ورحمة");
  const unrelated = phraseList("زززز").slice(0, 99);
  const rows: string[] = [];
  for (const [label, folder] of [
    ["NeMo CTC (constructed)", "ctc"],
    ["NeMo RNNT (constructed, sure: joiner logits × 12)", "rnnt-sure"],
    ["NeMo RNNT (constructed, unsure: blank barely above 27 tokens)", "rnnt"],
  ] as const) {
    const built = await engine(join(dir, folder));
    const times = await interleaved([
      () => built.service.transcribeSamples(audio),
      () => built.service.transcribeSamples(audio, { hotwords: boosted }),
      () => built.service.transcribeSamples(audio, { hotwords: unrelated }),
    ]);
    const [plain, withList, noMatch] = [times[0]!, times[1]!, times[2]!];
    const ms = (t: { wall: number; cpu: number }) => `${t.wall.toFixed(1)} / ${t.cpu.toFixed(1)}`;
    rows.push(
      `| ${label} | ${ms(plain)} | ${ms(withList)} | ${(withList.cpu / plain.cpu).toFixed(2)} | ${ms(noMatch)} | ${(noMatch.cpu / plain.cpu).toFixed(2)} |`,
    );
    await built.release();
  }
  console.log(`## Phrase boosting cost (boost.bench.ts)

${seconds.toFixed(1)} s of constructed tone speech, median of ${RUNS} runs, Bun ${Bun.version}, ${process.arch},
CPU execution provider, the three calls timed in turns; ratios are of CPU time (every thread),
which a busy neighbour on a shared machine disturbs less than wall time. "boosted" carries 100
phrases, one of them spoken; "no match" 99 phrases none of which is spoken. Goal: boosted / plain
≤ 1.3. The constructed models' sessions take microseconds, so the search's share of the time is far
larger here than on a real recogniser, whose encoder dominates.

| recogniser | plain ms (wall / CPU) | boosted ms | boosted / plain (CPU) | no match ms | no match / plain (CPU) |
|---|---:|---:|---:|---:|---:|
${rows.join("\n")}
`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
