/**
 * A constructed NeMo-CTC-contract recogniser that reads the tone voice back: every letter of
 * {@link LETTER_TONES} is a tone-voice phoneme id (a sine of 200 + 100·id Hz), and the model emits
 * that letter's token wherever the 80-bin fbank is loudest in the mel bin of its tone. Piper's pad
 * `_`, bos `^` and eos `$` (ids 0–2, 200–400 Hz) and silence come out as blank, the space (id 3)
 * as `▁`. Pair it with {@link writeLetterVoicePack} (a Piper `phoneme_type: text` voice using the
 * same ids) for text → TTS → audio → ASR → text round trips.
 *
 * Graph (NeMo's export contract): `audio_signal` float [N, 80, T], `length` int64 [N] →
 * `logprobs` [N, ceil(T/4), V]: per frame the logit of token t is the log-mel energy of its tone's
 * bin relative to that tone's full level, the blank's is max(floor, the same for pad/bos/eos); every 4th frame is kept
 * (subsampling_factor 4) and frames at or past `length` are forced to blank, so a wrong length
 * input shows. Features must not be normalised (metadata normalize_type is empty).
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { nemoFbank } from "../../../src/audio/features/fbank.ts";
import { GraphBuilder } from "../onnx/builder.ts";
import { toneFrequency, TONE, writePiperPack, type PiperPack } from "./tone-voice.ts";

/**
 * Letters and their tone ids. The ids are chosen so that each tone peaks in its own 80-bin mel
 * filter at least two filters away from every other one (and from ids 0–3), which keeps them
 * apart after resampling and lossy codecs.
 */
export const LETTER_TONES: readonly (readonly [string, number])[] = [
  ["ا", 4],
  ["ل", 5],
  ["م", 6],
  ["س", 7],
  ["ع", 8],
  ["ي", 9],
  ["ك", 10],
  ["ب", 11],
  ["ر", 12],
  ["ح", 14],
  ["ن", 15],
  ["ت", 17],
  ["ه", 19],
  ["و", 21],
  ["د", 23],
  ["ف", 25],
  ["ق", 27],
  ["ش", 30],
  ["خ", 32],
  ["ج", 35],
  ["ص", 38],
  ["ة", 41],
  ["ء", 44],
  ["ط", 48],
  ["ز", 52],
  ["ذ", 56],
];

/** Tone id of Piper's word separator (space). */
export const SPACE_TONE = 3;
/** Tone ids the recogniser treats as blank: Piper's pad, bos, eos. */
export const BLANK_TONES = [0, 1, 2] as const;
/** Features' mel bins. */
export const CTC_FEAT_DIM = 80;
/** Output frames keep one input frame in four. */
export const CTC_SUBSAMPLING = 4;
/** Blank's logit when no tone sounds: a tone's own bin sits near 0 of it, silence ~15 below. */
export const CTC_ENERGY_FLOOR = -6;

/** The CTC vocabulary: `▁`, the letters, then `<blk>` last as NeMo exports it. */
export function ctcTokens(): string[] {
  return ["▁", ...LETTER_TONES.map(([letter]) => letter), "<blk>"];
}

const peaks = new Map<number, { bin: number; level: number }>();

/**
 * The 80-bin fbank filter where a tone of `frequency` Hz (at the voice's amplitude) is loudest,
 * and its log energy there: measured, not assumed (preemphasis makes low tones 15 dB quieter).
 */
export function tonePeak(frequency: number): { bin: number; level: number } {
  let peak = peaks.get(frequency);
  if (peak !== undefined) return peak;
  const audio = new Float32Array(4000);
  for (let i = 0; i < audio.length; i++) audio[i] = TONE.AMPLITUDE * Math.sin((2 * Math.PI * frequency * i) / 16000);
  const { data, nFrames } = nemoFbank(audio, { normalize: "none" });
  peak = { bin: 0, level: -Infinity };
  for (let m = 0; m < CTC_FEAT_DIM; m++) {
    const value = data[m * nFrames + 10]!;
    if (value > peak.level) peak = { bin: m, level: value };
  }
  peaks.set(frequency, peak);
  return peak;
}

/** The 80-bin fbank filter where a tone of `frequency` Hz is loudest. */
export function peakMelBin(frequency: number): number {
  return tonePeak(frequency).bin;
}

/** Builds the recogniser as ONNX bytes. */
export function buildToneCtc(): Uint8Array {
  const g = new GraphBuilder("tone_ctc");
  const features = g.input("audio_signal", "float32", [
    "audio_signal_dynamic_axes_1",
    CTC_FEAT_DIM,
    "audio_signal_dynamic_axes_2",
  ]);
  const length = g.input("length", "int64", ["length_dynamic_axes_1"]);
  const tokenTones = [SPACE_TONE, ...LETTER_TONES.map(([, id]) => id)];
  const blankTones = [...BLANK_TONES];
  // Energy of each tone's bin relative to that tone at full level: 0 when it sounds, far below otherwise.
  const relative = (ids: readonly number[]) => {
    const bins = g.int64(ids.map((id) => tonePeak(toneFrequency(id)).bin));
    const levels = g.float(
      ids.map((id) => tonePeak(toneFrequency(id)).level),
      [1, ids.length, 1],
    );
    return g.op("Sub", [g.op("Gather", [features, bins], { axis: 1 }), levels]);
  };
  // [N, K, T] per token; blank = max(floor, pad/bos/eos tones).
  const tokenEnergy = relative(tokenTones);
  const blankEnergy = g.op("Max", [
    g.op("ReduceMax", [relative(blankTones)], { axes: [1], keepdims: 1 }),
    g.float(CTC_ENERGY_FLOOR),
  ]);
  const logits = g.op("Transpose", [g.op("Concat", [tokenEnergy, blankEnergy], { axis: 1 })], { perm: [0, 2, 1] });
  const kept = g.op("Slice", [logits, g.int64([0]), g.int64([1 << 30]), g.int64([1]), g.int64([CTC_SUBSAMPLING])]);
  // Frames whose first input frame lies at or past `length` carry no audio: force blank there.
  const frames = g.op("Gather", [g.op("Shape", [kept]), g.int64(1)], { axis: 0 });
  const firstInput = g.op("Mul", [g.op("Range", [g.int64(0), frames, g.int64(1)]), g.int64(CTC_SUBSAMPLING)]);
  const valid = g.op("Unsqueeze", [
    g.op("Less", [firstInput, g.op("Gather", [length, g.int64(0)], { axis: 0 })]),
    g.int64([0, 2]),
  ]);
  const vocab = tokenTones.length + 1;
  const blankOnly = g.float([...Array.from({ length: vocab - 1 }, () => -100), 0]);
  const masked = g.op("Where", [valid, kept, blankOnly]);
  g.output(g.op("LogSoftmax", [masked], { axis: -1 }), "logprobs", "float32", [
    "logprobs_dynamic_axes_1",
    "logprobs_dynamic_axes_2",
    vocab,
  ]);
  return g.toModel({
    producerName: "sawt-test-tone-ctc",
    metadata: {
      vocab_size: vocab - 1,
      normalize_type: "",
      subsampling_factor: CTC_SUBSAMPLING,
      model_type: "EncDecCTCModelBPE",
      version: "1",
      model_author: "sawt-test",
      comment: "constructed tone recogniser",
    },
  });
}

/** Writes a NeMo CTC pack (`model.onnx` + `tokens.txt`) into `dir`. */
export async function writeToneCtcPack(dir: string): Promise<{ modelPath: string; tokensPath: string }> {
  await mkdir(dir, { recursive: true });
  const modelPath = join(dir, "model.onnx");
  const tokensPath = join(dir, "tokens.txt");
  await Bun.write(modelPath, buildToneCtc());
  await Bun.write(
    tokensPath,
    ctcTokens()
      .map((t, i) => `${t} ${i}\n`)
      .join(""),
  );
  return { modelPath, tokensPath };
}

/** Writes the matching Piper text voice: each letter of {@link LETTER_TONES} speaks its tone. */
export function writeLetterVoicePack(
  dir: string,
  options: { name?: string; sampleRate?: number } = {},
): Promise<PiperPack> {
  return writePiperPack(dir, {
    name: options.name ?? "ar_SA-tone-letters-medium",
    sampleRate: options.sampleRate ?? 22050,
    phonemeType: "text",
    phonemeIdMap: Object.fromEntries(LETTER_TONES),
  });
}

/**
 * The audio the tone voice speaks for `text` (Piper's `^ _ (c _)* $` with the letter ids), made
 * here directly rather than through the voice model, for recogniser tests that need no TTS.
 */
export function letterToneAudio(text: string, sampleRate = 16000, lengthScale = 1): Float32Array {
  const ids: number[] = [1, 0];
  const byLetter = new Map(LETTER_TONES);
  for (const char of text.normalize("NFD")) {
    const id = char === " " ? SPACE_TONE : byLetter.get(char);
    if (id === undefined) throw new Error(`no tone for ${JSON.stringify(char)}`);
    ids.push(id, 0);
  }
  ids.push(2);
  const segment = Math.max(1, Math.round(TONE.BASE_SECONDS * sampleRate * lengthScale));
  const out = new Float32Array(ids.length * segment);
  for (const [k, id] of ids.entries()) {
    const f = toneFrequency(id);
    for (let j = 0; j < segment; j++)
      out[k * segment + j] = TONE.AMPLITUDE * Math.sin((2 * Math.PI * f * j) / sampleRate);
  }
  return out;
}
