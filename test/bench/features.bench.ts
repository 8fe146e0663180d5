/**
 * Front-end feature cost on 30 s of 16 kHz audio: Whisper log-mel (80 and 128 mels) and NeMo
 * fbank. Prints a markdown table (median of several runs after warm-up; real-time factor =
 * compute time / audio time). Run: `bun test/bench/features.bench.ts`.
 */
import { nemoFbank } from "../../src/audio/features/fbank.ts";
import { whisperLogMel } from "../../src/audio/features/whisper-mel.ts";

/** One measured feature extractor. */
export interface FeatureBenchRow {
  readonly name: string;
  readonly shape: string;
  readonly medianMs: number;
  readonly realTimeFactor: number;
}

const SECONDS = 30;

function speechLikeAudio(): Float32Array {
  const out = new Float32Array(SECONDS * 16000);
  let state = 1;
  for (let i = 0; i < out.length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const envelope = 0.5 + 0.5 * Math.sin((2 * Math.PI * 3 * i) / 16000);
    out[i] =
      envelope * (0.3 * Math.sin((2 * Math.PI * 180 * i) / 16000) + 0.1 * Math.sin((2 * Math.PI * 2400 * i) / 16000)) +
      0.02 * (state / 2 ** 32 - 0.5);
  }
  return out;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Measures each extractor `runs` times after `warmup` untimed runs. */
export function benchFeatures(runs = 10, warmup = 3): FeatureBenchRow[] {
  const audio = speechLikeAudio();
  const cases: [string, () => { nMels: number; nFrames: number }][] = [
    ["whisper log-mel (80)", () => whisperLogMel(audio, { nMels: 80 })],
    ["whisper log-mel (128)", () => whisperLogMel(audio, { nMels: 128 })],
    ["nemo fbank (80, n_fft 512)", () => nemoFbank(audio)],
  ];
  return cases.map(([name, run]) => {
    let shape = "";
    for (let i = 0; i < warmup; i++) run();
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      const result = run();
      times.push(performance.now() - started);
      shape = `[${result.nMels}, ${result.nFrames}]`;
    }
    const medianMs = median(times);
    return { name, shape, medianMs, realTimeFactor: medianMs / (SECONDS * 1000) };
  });
}

if (import.meta.main) {
  console.log(
    `## ASR feature extraction (features.bench.ts)\n\n30 s of 16 kHz audio, Bun ${Bun.version}, ${process.arch}: median of repeated runs; real-time factor = compute time / audio time.\n`,
  );
  console.log("| features | output | median ms | real-time factor |");
  console.log("|---|---|---:|---:|");
  for (const row of benchFeatures()) {
    console.log(`| ${row.name} | ${row.shape} | ${row.medianMs.toFixed(1)} | ${row.realTimeFactor.toExponential(2)} |`);
  }
}
