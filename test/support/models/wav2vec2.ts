/**
 * A constructed wav2vec2-family CTC pack in the Hugging Face layout, built from the contract
 * transformers.js reads (`src/models/wav2vec2/feature_extraction_wav2vec2.js`: raw `input_values`
 * [batch, samples], zero-mean unit-variance when `do_normalize`, `attention_mask` int64;
 * `modeling_wav2vec2.js` Wav2Vec2ForCTC: `logits` [batch, frames, vocab]) and Optimum's
 * `automatic-speech-recognition` export (file names `model.onnx`, `onnx/model_quantized.onnx`).
 *
 * Audio is spelled letter by letter ({@link spellAudio}): each character a 60 ms tone of its own
 * frequency (400 + 200·i Hz, an exact DFT bin of a 320-sample frame) and a 40 ms pause (so a
 * whole silent frame separates letters however the audio is cut); the word
 * delimiter `|` has a tone too. The graph cuts the input into 320-sample frames, names each
 * frame's letter by the DFT energy at the letter tones and emits it only when the frame's RMS
 * lies in the band the pack's normalisation implies (0.5–3 after zero-mean unit-variance; 0.02–0.1
 * raw): elsewhere the pad token, which sits at id 2 (not 0) while the first letter takes id 0. A
 * runner that skips (or wrongly applies) normalisation, takes blank as 0, ignores the delimiter or
 * fails to collapse repeats gives wrong text; `attention_mask` is multiplied in, so it must be 1s.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { GraphBuilder, tensor } from "../onnx/builder.ts";

/** Letters the pack knows, in tone order; `|` is the word delimiter. */
export const WAV2VEC2_LETTERS = ["ا", "ل", "ه", "س", "م", "ع", "ي", "ك", "ب", "ر", "|"] as const;

const FRAME = 320;
const RATE = 16000;
/** Raw amplitude of a letter tone (RMS ≈ 0.035: inside the raw band, far below the normalised one). */
export const LETTER_AMPLITUDE = 0.05;

const frequency = (index: number) => 400 + 200 * index;

/** Audio spelling `text` (letters of {@link WAV2VEC2_LETTERS}; a space is the `|` tone). */
export function spellAudio(text: string, lead = 0.1): Float32Array {
  const parts: number[] = new Array(Math.round(lead * RATE)).fill(0);
  for (const char of text) {
    const index = WAV2VEC2_LETTERS.indexOf((char === " " ? "|" : char) as (typeof WAV2VEC2_LETTERS)[number]);
    if (index < 0) throw new Error(`no tone for ${char}`);
    for (let i = 0; i < 3 * FRAME; i++)
      parts.push(LETTER_AMPLITUDE * Math.sin((2 * Math.PI * frequency(index) * i) / RATE));
    for (let i = 0; i < 2 * FRAME; i++) parts.push(0);
  }
  for (let i = 0; i < lead * RATE; i++) parts.push(0);
  return Float32Array.from(parts);
}

/** Seconds at which the `n`-th character's tone starts in {@link spellAudio}'s output. */
export function letterStart(n: number, lead = 0.1): number {
  return lead + (n * 5 * FRAME) / RATE;
}

/** Options of the constructed pack. */
export interface Wav2Vec2Script {
  /** preprocessor_config.json do_normalize (default true). */
  readonly normalize?: boolean;
  /** MMS layout: vocab.json keyed by language (`eng` with other ids, then `ara`). */
  readonly mms?: boolean;
  readonly folder?: "" | "onnx/";
  readonly suffix?: string;
}

/** The vocabulary: first letter at 0, `<s>` 1, `<pad>` 2, `</s>` 3, `<unk>` 4, then the rest. */
export function wav2vec2Vocab(): Record<string, number> {
  const [first, ...rest] = WAV2VEC2_LETTERS;
  const vocab: Record<string, number> = { [first]: 0, "<s>": 1, "<pad>": 2, "</s>": 3, "<unk>": 4 };
  for (const [i, letter] of rest.entries()) vocab[letter] = 5 + i;
  return vocab;
}

/** Builds the model. */
export function buildWav2Vec2Model(script: Wav2Vec2Script): Uint8Array {
  const vocab = wav2vec2Vocab();
  const size = Object.keys(vocab).length;
  const [low, high] = script.normalize === false ? [0.02, 0.1] : [0.5, 3];
  const g = new GraphBuilder("wav2vec2_ctc");
  const input = g.input("input_values", "float32", ["batch_size", "sequence_length"]);
  const mask = g.input("attention_mask", "int64", ["batch_size", "sequence_length"]);
  const x = g.op("Mul", [input, g.op("Cast", [mask], { to: 1 })]);
  const n = g.op("Gather", [g.op("Shape", [x]), g.int64(1)], { axis: 0 });
  const usable = g.op("Mul", [g.op("Div", [n, g.int64(FRAME)]), g.int64(FRAME)]);
  const frames = g.op("Reshape", [
    g.op("Slice", [x, g.int64([0]), g.op("Unsqueeze", [usable, g.int64([0])]), g.int64([1])]),
    g.int64([-1, FRAME]),
  ]);
  const letters = WAV2VEC2_LETTERS.length;
  const cos = new Float32Array(FRAME * letters);
  const sin = new Float32Array(FRAME * letters);
  for (let t = 0; t < FRAME; t++)
    for (let k = 0; k < letters; k++) {
      cos[t * letters + k] = Math.cos((2 * Math.PI * frequency(k) * t) / RATE);
      sin[t * letters + k] = Math.sin((2 * Math.PI * frequency(k) * t) / RATE);
    }
  const square = (v: string) => g.op("Mul", [v, v]);
  const energy = g.op("Add", [
    square(g.op("MatMul", [frames, g.constant(tensor(cos, [FRAME, letters]))])),
    square(g.op("MatMul", [frames, g.constant(tensor(sin, [FRAME, letters]))])),
  ]);
  const letter = g.op("ArgMax", [energy], { axis: 1, keepdims: 0 });
  const ids = g.int64(WAV2VEC2_LETTERS.map((l) => vocab[l]!));
  const token = g.op("Gather", [ids, letter], { axis: 0 });
  const power = g.op("ReduceMean", [square(frames)], { axes: [1], keepdims: 0 });
  const voiced = g.op("And", [
    g.op("Greater", [power, g.float(low * low)]),
    g.op("Less", [power, g.float(high * high)]),
  ]);
  const chosen = g.op("Where", [voiced, token, g.int64(vocab["<pad>"]!)]);
  const logits = g.op("OneHot", [chosen, g.int64(size), g.float([0, 10])], { axis: -1 });
  g.output(g.op("Unsqueeze", [logits, g.int64([0])]), "logits", "float32", ["batch_size", "frames", size]);
  return g.toModel({ producerName: "sawt-test-wav2vec2", opset: 13 });
}

/** Writes the pack into `dir`; returns the files written. */
export async function writeWav2Vec2Pack(dir: string, script: Wav2Vec2Script = {}): Promise<string[]> {
  const folder = script.folder ?? "";
  const model = `${folder}model${script.suffix ?? ""}.onnx`;
  await mkdir(join(dir, folder), { recursive: true });
  await Bun.write(join(dir, model), buildWav2Vec2Model(script));
  const vocab = wav2vec2Vocab();
  // MMS keeps one vocabulary per language; another language's ids are shifted so that taking the
  // wrong one shows.
  const english = Object.fromEntries(Object.entries(vocab).map(([t, id]) => [t, (id + 3) % 16]));
  const json: Record<string, unknown> = {
    "vocab.json": script.mms ? { eng: english, ara: vocab } : vocab,
    "tokenizer_config.json": {
      tokenizer_class: "Wav2Vec2CTCTokenizer",
      pad_token: "<pad>",
      unk_token: "<unk>",
      bos_token: "<s>",
      eos_token: "</s>",
      word_delimiter_token: "|",
      do_lower_case: false,
    },
    "special_tokens_map.json": { pad_token: "<pad>", unk_token: "<unk>", bos_token: "<s>", eos_token: "</s>" },
    "preprocessor_config.json": {
      feature_extractor_type: "Wav2Vec2FeatureExtractor",
      feature_size: 1,
      sampling_rate: 16000,
      padding_value: 0,
      do_normalize: script.normalize !== false,
      return_attention_mask: true,
    },
    "config.json": {
      model_type: script.mms ? "wav2vec2" : "hubert",
      pad_token_id: 2,
      conv_stride: [5, 2, 2, 2, 2, 2, 2],
    },
  };
  for (const [name, value] of Object.entries(json)) await Bun.write(join(dir, name), JSON.stringify(value));
  return [model, ...Object.keys(json)];
}
