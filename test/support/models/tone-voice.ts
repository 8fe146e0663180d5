/**
 * A constructed Piper-contract voice whose audio spells out its input: phoneme id `i` becomes one
 * segment of {@link toneSegmentSamples} samples of a sine at {@link toneFrequency}(i), scaled by
 * the speaker's {@link toneAmplitude}. Decode with tone-decoder.ts; package with
 * {@link writePiperPack} or {@link writeSherpaVitsPack}.
 *
 * Graph contract (Piper's export): `input` int64 [batch_size, phonemes], `input_lengths` int64
 * [batch_size], `scales` float32 [3] = [noise_scale, length_scale, noise_w], `sid` int64 [1] in
 * the multi-speaker variant → `output` float32 [1, 1, T] with T = input_lengths[0] · L.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { GraphBuilder, tensor } from "../onnx/builder.ts";

/** The tone code: frequencies, segment length and amplitudes. */
export const TONE = {
  /** Frequency of id 0. */
  F0_HZ: 200,
  /** Added per id. 100 Hz steps are whole cycles per 10 ms, so neighbours stay separable. */
  STEP_HZ: 100,
  /** Segment length at length_scale 1. */
  BASE_SECONDS: 0.08,
  /** Amplitude of speaker 0 (and of the single-speaker variant). */
  AMPLITUDE: 0.3,
  /** Added per speaker id. */
  AMPLITUDE_STEP: 0.05,
  /** Speakers whose amplitude stays within [-1, 1]. */
  MAX_SPEAKERS: 15,
} as const;

/** Tone frequency of phoneme id `id`, in Hz. */
export function toneFrequency(id: number): number {
  return TONE.F0_HZ + id * TONE.STEP_HZ;
}

/** Tone amplitude of speaker `sid` (0 in the single-speaker variant). */
export function toneAmplitude(sid: number): number {
  return TONE.AMPLITUDE + sid * TONE.AMPLITUDE_STEP;
}

/** Segment length at length_scale 1, in samples. */
export function toneBaseSamples(sampleRate: number): number {
  return Math.round(TONE.BASE_SECONDS * sampleRate);
}

/**
 * Segment length the graph produces for `lengthScale` from `baseSamples` (see
 * {@link toneBaseSamples}): round-half-even of the float32 product, exactly as ONNX `Round`
 * computes it, and at least one sample.
 */
export function toneSegmentSamples(baseSamples: number, lengthScale: number): number {
  const x = Math.fround(Math.fround(lengthScale) * baseSamples);
  const floor = Math.floor(x);
  const diff = x - floor;
  const rounded = diff > 0.5 || (diff === 0.5 && floor % 2 === 1) ? floor + 1 : floor;
  return Math.max(1, rounded);
}

/** Largest id whose tone stays below 45% of the sample rate (clear of Nyquist). */
export function maxToneId(sampleRate: number): number {
  return Math.floor((0.45 * sampleRate - TONE.F0_HZ) / TONE.STEP_HZ);
}

/** Options of {@link buildToneVoice}. */
export interface ToneVoiceOptions {
  readonly sampleRate: number;
  /** Adds the `sid` input; amplitude then encodes the speaker. */
  readonly multiSpeaker?: boolean;
  /** ModelProto metadata (sherpa-onnx packs carry theirs here). */
  readonly metadata?: Readonly<Record<string, string | number>>;
  /**
   * Adds a `speaker_embedding` float32 [1, D] input (cloned voices, D17): the amplitude then
   * becomes AMPLITUDE + EMBEDDING_GAIN · embedding[0], so a test reads the embedding's first value
   * back from the audio (zeros — a built-in voice — give the plain amplitude).
   */
  readonly embeddingDim?: number;
  /**
   * Makes every run cost real CPU time without changing the audio: this many chained dense
   * `COST_MAT_SIZE`² MatMuls over a tile of the noise scale, summed and added times zero (see
   * slow-model.ts for why no optimiser can drop them). For streaming and latency tests that need
   * a voice of realistic per-sentence cost.
   */
  readonly costRepeats?: number;
  /**
   * Makes the model this many MiB heavier without changing the audio: a float32 initializer read
   * at an index that depends on the input (so no optimiser folds it away) and added times zero.
   * For memory tests that need a pack whose release shows in the process's RSS.
   */
  readonly ballastMiB?: number;
  /**
   * Adds a second output as Piper's alignment patch does (its w_ceil tensor): int64 [1, 1, N], how
   * long each id lasts. The tone voice gives each id one segment, so every value is the segment
   * length (in samples; Piper's are frames, which Sawt scales to the audio the same way).
   */
  readonly durations?: boolean;
}

/** Side of the cost MatMuls: 2·256³ ≈ 34 MFLOP each. */
export const COST_MAT_SIZE = 256;

/** How strongly embedding[0] moves the tone amplitude of an embedding voice. */
export const EMBEDDING_GAIN = 0.4;

/** Builds the tone voice as serialised ONNX bytes. */
export function buildToneVoice(options: ToneVoiceOptions): Uint8Array {
  const { sampleRate } = options;
  if (!Number.isInteger(sampleRate) || sampleRate < 8000) throw new Error(`unsupported sample rate ${sampleRate}`);
  const g = new GraphBuilder("tone_voice");
  const input = g.input("input", "int64", ["batch_size", "phonemes"]);
  const inputLengths = g.input("input_lengths", "int64", ["batch_size"]);
  const scales = g.input("scales", "float32", [3]);
  const sid = options.multiSpeaker ? g.input("sid", "int64", [1]) : undefined;
  const embedding = options.embeddingDim
    ? g.input("speaker_embedding", "float32", [1, options.embeddingDim])
    : undefined;

  // L = max(1, round(length_scale · base)) samples per id.
  const lengthScale = g.op("Gather", [scales, g.int64(1)], { axis: 0 });
  const rounded = g.op("Round", [g.op("Mul", [lengthScale, g.float(toneBaseSamples(sampleRate))])]);
  const segment = g.op("Max", [g.op("Cast", [rounded], { to: 7 }), g.int64(1)]);

  // Trusting input_lengths (as Piper does) makes a wrong length visible: too many ids fail in Gather.
  const count = g.op("Gather", [inputLengths, g.int64(0)], { axis: 0 });
  const t = g.op("Range", [g.int64(0), g.op("Mul", [count, segment]), g.int64(1)]);
  const k = g.op("Div", [t, segment]);
  const j = g.op("Sub", [t, g.op("Mul", [k, segment])]);
  const ids = g.op("Gather", [g.op("Gather", [input, g.int64(0)], { axis: 0 }), k], { axis: 0 });

  // Phase in whole cycles·sampleRate, reduced modulo the rate in int64 so the float argument of
  // Sin stays in [0, 2π) and exact however long the segment is; each segment starts at phase 0.
  const freq = g.op("Add", [g.op("Mul", [ids, g.int64(TONE.STEP_HZ)]), g.int64(TONE.F0_HZ)]);
  const phase = g.op("Mod", [g.op("Mul", [freq, j]), g.int64(sampleRate)]);
  const arg = g.op("Mul", [g.op("Cast", [phase], { to: 1 }), g.float((2 * Math.PI) / sampleRate)]);
  const amplitude = sid
    ? g.op("Add", [
        g.op("Mul", [
          g.op("Cast", [g.op("Gather", [sid, g.int64(0)], { axis: 0 })], { to: 1 }),
          g.float(TONE.AMPLITUDE_STEP),
        ]),
        g.float(TONE.AMPLITUDE),
      ])
    : g.float(TONE.AMPLITUDE);
  const voiced = embedding
    ? g.op("Add", [
        amplitude,
        g.op("Mul", [
          g.op("Gather", [g.op("Gather", [embedding, g.int64(0)], { axis: 0 }), g.int64(0)], { axis: 0 }),
          g.float(EMBEDDING_GAIN),
        ]),
      ])
    : amplitude;
  let audio = g.op("Mul", [g.op("Sin", [arg]), voiced]);
  if (options.costRepeats)
    audio = g.op("Add", [audio, g.op("Mul", [costChain(g, scales, options.costRepeats), g.float(0)])]);
  if (options.ballastMiB)
    audio = g.op("Add", [audio, g.op("Mul", [ballast(g, count, options.ballastMiB), g.float(0)])]);
  // Piper's export labels dims loosely; the audio is always the last dim, as Sawt must assume.
  g.output(g.op("Reshape", [audio, g.int64([1, 1, -1])]), "output", "float32", ["batch_size", 1, "time"]);
  if (options.durations) {
    const shape = g.op("Concat", [g.int64([1, 1]), g.op("Unsqueeze", [count, g.int64([0])])], { axis: 0 });
    g.output(g.op("Expand", [segment, shape]), "/dp/Ceil_output_0", "int64", [1, 1, "phonemes"]);
  }
  return g.toModel({
    producerName: "sawt-test-tone-voice",
    ...(options.metadata ? { metadata: options.metadata } : {}),
  });
}

/** A scalar that takes `repeats` dense MatMuls to compute from `scales` (a permutation, so it stays finite). */
function costChain(g: GraphBuilder, scales: string, repeats: number): string {
  const n = COST_MAT_SIZE;
  const shift = new Float32Array(n * n);
  for (let row = 0; row < n; row++) shift[row * n + ((row + 1) % n)] = 1;
  const weights = g.initializer("cost_shift", tensor(shift, [n, n]));
  const noise = g.op("Reshape", [g.op("Gather", [scales, g.int64(0)], { axis: 0 }), g.int64([1, 1])]);
  let m = g.op("Tile", [noise, g.int64([n, n])]);
  for (let i = 0; i < repeats; i++) m = g.op("MatMul", [m, weights]);
  return g.op("ReduceSum", [m], { keepdims: 0 });
}

/** One value of a `mib`-MiB initializer, at index `count - count` (input-dependent, never folded). */
function ballast(g: GraphBuilder, count: string, mib: number): string {
  const values = new Float32Array((mib * 1024 * 1024) / 4);
  for (let i = 0; i < values.length; i += 1024) values[i] = i; // not all zeros: nothing may share or compress it
  const weights = g.initializer("ballast", tensor(values, [values.length]));
  return g.op("Gather", [weights, g.op("Sub", [count, count])], { axis: 0 });
}

/** Piper's reserved symbols: pad, bos, eos and word separator. */
export const PIPER_SPECIAL_IDS: Readonly<Record<string, readonly number[]>> = { _: [0], "^": [1], $: [2], " ": [3] };

/** Piper's `language` block of a voice config. */
export interface PiperLanguage {
  readonly code: string;
  readonly family: string;
  readonly region: string;
  readonly name_native: string;
  readonly name_english: string;
  readonly country_english: string;
}

/** Options of {@link writePiperPack}. */
export interface PiperPackOptions {
  /** File stem: writes `<name>.onnx` and `<name>.onnx.json`. */
  readonly name: string;
  readonly sampleRate: number;
  /** Symbol → id(s), merged over {@link PIPER_SPECIAL_IDS}; ids must be ≤ maxToneId(sampleRate). */
  readonly phonemeIdMap: Readonly<Record<string, number | readonly number[]>>;
  /** Default `espeak`. */
  readonly phonemeType?: "espeak" | "text";
  /** Default `ar`. */
  readonly espeakVoice?: string;
  /** More than one entry makes a multi-speaker voice (with `sid`). */
  readonly speakerIdMap?: Readonly<Record<string, number>>;
  /** Defaults 1, 0.667, 0.8 as in published voices. */
  readonly lengthScale?: number;
  readonly noiseScale?: number;
  readonly noiseW?: number;
  /** Default: the ar_JO block of Piper's Arabic voice. */
  readonly language?: PiperLanguage;
  /** Default: `name`. */
  readonly dataset?: string;
  /** Default `medium`. */
  readonly quality?: string;
  /** Default: largest id + 1. */
  readonly numSymbols?: number;
  /** Makes the voice take a speaker embedding of this size (see ToneVoiceOptions). */
  readonly embeddingDim?: number;
  /** Makes every run cost this many dense MatMuls (see ToneVoiceOptions.costRepeats). */
  readonly costRepeats?: number;
  /** Makes the model this many MiB heavier (see ToneVoiceOptions.ballastMiB). */
  readonly ballastMiB?: number;
  /** Adds the alignment output (see ToneVoiceOptions.durations). */
  readonly durations?: boolean;
  /** The model bytes to write instead of the tone voice (a graph of the same contract). */
  readonly model?: () => Uint8Array;
}

/** Paths of a written Piper pack, and the config as written. */
export interface PiperPack {
  readonly modelPath: string;
  readonly configPath: string;
  readonly config: Record<string, unknown>;
}

const ARABIC_JO: PiperLanguage = {
  code: "ar_JO",
  family: "ar",
  region: "JO",
  name_native: "العربية",
  name_english: "Arabic",
  country_english: "Jordan",
};

/** The phoneme id map a pack carries: the specials, then `map`, every value an array. */
export function piperPhonemeIdMap(map: Readonly<Record<string, number | readonly number[]>>): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [symbol, ids] of Object.entries({ ...PIPER_SPECIAL_IDS, ...map })) {
    out[symbol] = typeof ids === "number" ? [ids] : [...ids];
  }
  return out;
}

function checkIds(map: Record<string, number[]>, sampleRate: number): number {
  const limit = maxToneId(sampleRate);
  let max = 0;
  for (const [symbol, ids] of Object.entries(map)) {
    for (const id of ids) {
      if (!Number.isInteger(id) || id < 0 || id > limit) {
        throw new Error(
          `id ${id} of ${JSON.stringify(symbol)} is outside the tone range 0..${limit} at ${sampleRate} Hz`,
        );
      }
      max = Math.max(max, id);
    }
  }
  return max;
}

function checkSpeakers(count: number): number {
  if (count > TONE.MAX_SPEAKERS) throw new Error(`the tone voice encodes at most ${TONE.MAX_SPEAKERS} speakers`);
  return count;
}

/**
 * Writes a Piper voice into `dir`: the tone voice as `<name>.onnx` and its config as
 * `<name>.onnx.json`, in the key order and 4-space layout of Piper's published voices.
 */
export async function writePiperPack(dir: string, options: PiperPackOptions): Promise<PiperPack> {
  const phonemeIdMap = piperPhonemeIdMap(options.phonemeIdMap);
  const maxId = checkIds(phonemeIdMap, options.sampleRate);
  const numSpeakers = checkSpeakers(Math.max(1, Object.keys(options.speakerIdMap ?? {}).length));
  const config = {
    dataset: options.dataset ?? options.name,
    audio: { sample_rate: options.sampleRate, quality: options.quality ?? "medium" },
    espeak: { voice: options.espeakVoice ?? "ar" },
    language: options.language ?? ARABIC_JO,
    inference: {
      noise_scale: options.noiseScale ?? 0.667,
      length_scale: options.lengthScale ?? 1,
      noise_w: options.noiseW ?? 0.8,
    },
    phoneme_type: options.phonemeType ?? "espeak",
    phoneme_map: {},
    phoneme_id_map: phonemeIdMap,
    num_symbols: options.numSymbols ?? maxId + 1,
    num_speakers: numSpeakers,
    speaker_id_map: { ...options.speakerIdMap },
    piper_version: "1.0.0",
  };
  await mkdir(dir, { recursive: true });
  const modelPath = join(dir, `${options.name}.onnx`);
  const configPath = `${modelPath}.json`;
  await Bun.write(
    modelPath,
    options.model?.() ??
      buildToneVoice({
        sampleRate: options.sampleRate,
        multiSpeaker: numSpeakers > 1,
        embeddingDim: options.embeddingDim,
        costRepeats: options.costRepeats,
        ballastMiB: options.ballastMiB,
        durations: options.durations,
      }),
  );
  await Bun.write(configPath, `${JSON.stringify(config, null, 4)}\n`);
  return { modelPath, configPath, config };
}

/** Options of {@link writeSherpaVitsPack}. */
export interface SherpaVitsPackOptions {
  readonly sampleRate: number;
  /** As for Piper; tokens.txt lists the first id of each symbol. */
  readonly phonemeIdMap: Readonly<Record<string, number | readonly number[]>>;
  /** `voice` metadata (the espeak voice); default `ar`. */
  readonly espeakVoice?: string;
  /** `language` metadata, an English name as sherpa-onnx writes it; default `Arabic`. */
  readonly language?: string;
  /** Default 1; more makes the graph take `sid`. */
  readonly numSpeakers?: number;
  /** Default `model.onnx`. */
  readonly modelFile?: string;
  /** More metadata, e.g. `add_blank`, `punctuation`, which sherpa-onnx's Piper conversion leaves out. */
  readonly extraMetadata?: Readonly<Record<string, string | number>>;
  /** The model bytes to write, given the metadata, instead of the tone voice (same contract). */
  readonly model?: (metadata: Readonly<Record<string, string | number>>) => Uint8Array;
}

/** Paths of a written sherpa-onnx VITS pack, and the metadata as written. */
export interface SherpaVitsPack {
  readonly modelPath: string;
  readonly tokensPath: string;
  readonly metadata: Readonly<Record<string, string | number>>;
}

/**
 * Writes a sherpa-onnx VITS pack as sherpa-onnx converts a Piper voice: the same tone graph with
 * its metadata (`model_type=vits`, `comment=piper`, …) and `tokens.txt` with `<symbol> <id>` lines.
 */
export async function writeSherpaVitsPack(dir: string, options: SherpaVitsPackOptions): Promise<SherpaVitsPack> {
  const phonemeIdMap = piperPhonemeIdMap(options.phonemeIdMap);
  checkIds(phonemeIdMap, options.sampleRate);
  const numSpeakers = checkSpeakers(options.numSpeakers ?? 1);
  const metadata = {
    model_type: "vits",
    comment: "piper",
    language: options.language ?? "Arabic",
    voice: options.espeakVoice ?? "ar",
    has_espeak: 1,
    n_speakers: numSpeakers,
    sample_rate: options.sampleRate,
    ...options.extraMetadata,
  };
  await mkdir(dir, { recursive: true });
  const modelPath = join(dir, options.modelFile ?? "model.onnx");
  const tokensPath = join(dir, "tokens.txt");
  await Bun.write(
    modelPath,
    options.model?.(metadata) ??
      buildToneVoice({ sampleRate: options.sampleRate, multiSpeaker: numSpeakers > 1, metadata }),
  );
  // sherpa-onnx drops a newline symbol: it cannot be written on a line of its own.
  const lines = Object.entries(phonemeIdMap)
    .filter(([symbol]) => symbol !== "\n")
    .map(([symbol, ids]) => `${symbol} ${ids[0]}\n`);
  await Bun.write(tokensPath, lines.join(""));
  return { modelPath, tokensPath, metadata };
}
