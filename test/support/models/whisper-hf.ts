/**
 * A constructed Whisper pack in the Hugging Face layout, built from the publishers' contract:
 * file names and precisions as Optimum exports and onnx-community uploads them
 * (`encoder_model.onnx`, `decoder_model_merged.onnx` or `decoder_model.onnx` +
 * `decoder_with_past_model.onnx`, optionally under `onnx/` with `_quantized` etc. suffixes),
 * tensor names as transformers.js feeds them (`src/models/modeling_utils.js` seq2seq_forward and
 * decoder_forward: `input_features`, `encoder_hidden_states`, `input_ids`, `use_cache_branch`,
 * `past_key_values.N.{decoder,encoder}.{key,value}` → `logits`, `present.N.…`), the prompt
 * transformers.js builds (`src/models/whisper/modeling_whisper.js` _retrieve_init_tokens:
 * decoder_start_token_id, lang_to_id["<|ar|>"], task_to_id.transcribe, and no
 * `<|notimestamps|>` when timestamps are wanted) and the timestamp rules of
 * `src/generation/logits_process.js` WhisperTimeStampLogitsProcessor.
 *
 * Encoder: `input_features` [1, n_mels, 3000] → `last_hidden_state` [1, 4, 1] holding the script
 * row the audio's loudest band selects (../models/whisper.ts scriptRow: wrong mel bins, wrong row).
 *
 * Decoder: the self caches hold every token id fed so far (key and value, every layer); the
 * encoder caches hold the row (key) and 100 (value), computed on the first step only (a merged
 * decoder zeroes them when `use_cache_branch` is true: the first step's presents must be fed
 * back). The last position's logits put 10 on the row's next token only when both self caches
 * spell exactly [sot, <|ar|>, transcribe] + the row's tokens so far (position-weighted checksum),
 * the encoder value cache carries 100 and `use_cache_branch` says whether a cache was fed;
 * otherwise 20 on an error token `#`. Each row is `<|a|> text <|b|>` segments then eot;
 * distractors a correct runner masks sit at 10.5–11 (a text token where only a timestamp may go,
 * a timestamp past max_initial_timestamp_index, `<|notimestamps|>`, a timestamp where text must
 * follow a pair, text after a segment's closing timestamp).
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { byteLevelPiece } from "../../../src/asr/whisper-hf/tokenizer.ts";
import { GraphBuilder, tensor } from "../onnx/builder.ts";
import { scriptRow, type WhisperVocab, whisperVocab } from "./whisper.ts";

/** One timed stretch of a row. */
export interface HfSegment {
  readonly text: string;
  /** Timestamp indices (0.02 s each). */
  readonly start: number;
  readonly end: number;
}

/** What the constructed pack says. */
export interface HfWhisperScript {
  readonly rows: readonly (readonly HfSegment[])[];
  readonly bands: readonly (readonly [number, number])[];
  readonly nMels?: 80 | 128;
  /** Merged decoder (default) or the decoder + with-past pair. */
  readonly decoder?: "merged" | "split";
  /** Where the models go and their precision suffix (default: top level, fp32 names). */
  readonly folder?: "" | "onnx/";
  readonly suffix?: string;
}

/** Two rows: one segment, and two segments with a pause between. */
export const HF_WHISPER_SCRIPT: HfWhisperScript = {
  rows: [
    [{ text: "السلام عليكم", start: 5, end: 60 }],
    [
      { text: "صباح الخير", start: 2, end: 40 },
      { text: "يا أصدقاء", start: 50, end: 90 },
    ],
  ],
  bands: [
    [0, 1000],
    [1000, 8000],
  ],
};

const LAYERS = 2;
const AUDIO_CTX = 4;
const CTX = 64;
const TIMESTAMPS = 151;
const MAX_INITIAL = 50;
const PROMPT = 3;

/** The vocabulary: the sherpa-layout builder's pieces and special tokens, with 151 timestamps. */
export function hfWhisperVocab(script: HfWhisperScript): WhisperVocab {
  const texts = script.rows.flatMap((row) => row.map((s) => s.text));
  return whisperVocab({ rows: texts, bands: [], timestamps: TIMESTAMPS, chunkBytes: 3 });
}

/** Every row's tokens after the prompt: segments with their timestamps, then eot. */
function rowTokens(script: HfWhisperScript, vocab: WhisperVocab): number[][] {
  let text = 0;
  return script.rows.map((row) => [
    ...row.flatMap((s) => [vocab.timestampBegin + s.start, ...vocab.rowIds[text++]!, vocab.timestampBegin + s.end]),
    vocab.eot,
  ]);
}

/** The two distractors (at 11 and 10.5) for the token expected at column `c` of `tokens`. */
function distractors(tokens: readonly number[], c: number, v: WhisperVocab): [number, number] {
  const isTime = (id: number | undefined) => id !== undefined && id >= v.timestampBegin;
  const expected = tokens[c];
  if (c === 0) return [v.blank, v.timestampBegin + MAX_INITIAL + 1];
  if (expected === undefined || c >= tokens.length) return [v.noSpeech, v.sotLm];
  const pair = isTime(tokens[c - 1]) && (c < 2 || isTime(tokens[c - 2]));
  if (pair) return [v.timestampBegin + 140, v.languages.en];
  if (isTime(tokens[c - 1])) return [v.blank, v.noSpeech];
  return [v.noTimestamps, v.sotPrev];
}

/** Builds the encoder. */
export function buildHfWhisperEncoder(script: HfWhisperScript): Uint8Array {
  const nMels = script.nMels ?? 80;
  const g = new GraphBuilder("whisper_hf_encoder");
  const features = g.input("input_features", "float32", ["batch_size", nMels, 3000]);
  const row = scriptRow(g, features, script);
  g.output(g.op("Expand", [row, g.int64([1, AUDIO_CTX, 1])]), "last_hidden_state", "float32", [
    "batch_size",
    AUDIO_CTX,
    1,
  ]);
  return g.toModel({ producerName: "sawt-test-whisper-hf", opset: 13 });
}

type DecoderKind = "merged" | "first" | "with-past";

/** Builds one decoder file of the given kind. */
export function buildHfWhisperDecoder(script: HfWhisperScript, vocab: WhisperVocab, kind: DecoderKind): Uint8Array {
  const table = rowTokens(script, vocab).map((tokens) => Array.from({ length: CTX }, (_, c) => tokens[c] ?? vocab.eot));
  const rows = table.length;
  const prompt = [vocab.sot, vocab.languages.ar, vocab.transcribe];
  const expected = new Float32Array(rows * CTX);
  for (const [r, tokens] of table.entries()) {
    const sequence = [...prompt, ...tokens];
    let sum = 0;
    for (let q = 0; q < CTX; q++) {
      sum += (q + 1) * sequence[q]!;
      expected[r * CTX + q] = sum;
    }
  }
  const rowsTokens = rowTokens(script, vocab);
  const d1 = rowsTokens.map((t) => Array.from({ length: CTX }, (_, c) => distractors(t, c, vocab)[0]));
  const d2 = rowsTokens.map((t) => Array.from({ length: CTX }, (_, c) => distractors(t, c, vocab)[1]));

  const g = new GraphBuilder(`whisper_hf_${kind}`);
  const ids = g.input("input_ids", "int64", ["batch_size", "decoder_sequence_length"]);
  const hidden =
    kind === "with-past"
      ? null
      : g.input("encoder_hidden_states", "float32", ["batch_size", "encoder_sequence_length", 1]);
  const useCache = kind === "merged" ? g.input("use_cache_branch", "bool", [1]) : null;
  const selfDims = ["batch_size", 1, "past_decoder_sequence_length", 1];
  const crossDims = ["batch_size", 1, "encoder_sequence_length_out", 1];
  const past = (layer: number, part: "decoder" | "encoder", kv: "key" | "value") =>
    kind === "first"
      ? null
      : g.input(`past_key_values.${layer}.${part}.${kv}`, "float32", part === "decoder" ? selfDims : crossDims);
  const idsF = g.op("Reshape", [g.op("Cast", [ids], { to: 1 }), g.int64([1, 1, -1, 1])]);
  // 1 on the first step (no cache fed), 0 after: the merged decoder's branch flag.
  const fresh = useCache ? g.op("Sub", [g.float(1), g.op("Cast", [useCache], { to: 1 })]) : g.float(1);
  const fromHidden = hidden ? g.op("Mul", [g.op("Reshape", [hidden, g.int64([1, 1, AUDIO_CTX, 1])]), fresh]) : null;
  const sentinel = hidden
    ? g.op("Mul", [g.op("Add", [g.op("Mul", [fromHidden!, g.float(0)]), g.float(100)]), fresh])
    : null;
  const presents: Record<string, string> = {};
  for (let layer = 0; layer < LAYERS; layer++) {
    for (const kv of ["key", "value"] as const) {
      const p = past(layer, "decoder", kv);
      presents[`${layer}.decoder.${kv}`] = p ? g.op("Concat", [p, idsF], { axis: 2 }) : g.op("Identity", [idsF]);
      const pe = past(layer, "encoder", kv);
      const own = kv === "key" ? fromHidden : sentinel;
      if (own === null) presents[`${layer}.encoder.${kv}`] = pe!;
      else if (pe === null) presents[`${layer}.encoder.${kv}`] = own;
      else
        presents[`${layer}.encoder.${kv}`] = g.op("Slice", [
          g.op("Concat", [pe, own], { axis: 2 }),
          g.int64([0]),
          g.int64([AUDIO_CTX]),
          g.int64([2]),
        ]);
    }
  }
  const flat = (name: string) => g.op("Reshape", [presents[name]!, g.int64([-1])]);
  const length = g.op("Gather", [g.op("Shape", [flat("0.decoder.key")]), g.int64(0)], { axis: 0 });
  const q = g.op("Sub", [length, g.int64(1)]);
  const weights = g.op("Range", [g.float(1), g.op("Add", [g.op("Cast", [length], { to: 1 }), g.float(1)]), g.float(1)]);
  const checksum = (name: string) => g.op("ReduceSum", [g.op("Mul", [flat(name), weights])], { keepdims: 0 });
  const first = (name: string) => g.op("Gather", [flat(name), g.int64(0)], { axis: 0 });
  const row = g.op(
    "Cast",
    [g.op("Clip", [g.op("Round", [first(`${LAYERS - 1}.encoder.key`)]), g.float(0), g.float(rows - 1)])],
    {
      to: 7,
    },
  );
  const lastPosition = g.op("Min", [q, g.int64(CTX - 1)]);
  const expect = g.op(
    "Gather",
    [g.op("Gather", [g.constant(tensor(expected, [rows, CTX])), row], { axis: 0 }), lastPosition],
    { axis: 0 },
  );
  const near = (a: string, b: string) => g.op("Less", [g.op("Abs", [g.op("Sub", [a, b])]), g.float(0.5)]);
  let valid = g.op("And", [
    g.op("And", [near(checksum("0.decoder.key"), expect), near(checksum(`${LAYERS - 1}.decoder.value`), expect)]),
    near(first(`${LAYERS - 1}.encoder.value`), g.float(100)),
  ]);
  if (useCache) {
    // use_cache_branch must say whether a self cache was fed.
    const fedCache = g.op("Greater", [
      g.op("Sub", [length, g.op("Gather", [g.op("Shape", [ids]), g.int64(1)], { axis: 0 })]),
      g.int64(0),
    ]);
    valid = g.op("And", [
      valid,
      g.op("Equal", [
        g.op("Cast", [fedCache], { to: 7 }),
        g.op("Cast", [g.op("Reshape", [useCache, g.int64([])])], { to: 7 }),
      ]),
    ]);
  }
  const col = g.op("Max", [g.op("Min", [g.op("Sub", [q, g.int64(PROMPT - 1)]), g.int64(CTX - 1)]), g.int64(0)]);
  const pick = (values: readonly number[][]) =>
    g.op("Gather", [g.op("Gather", [g.int64(values.flat(), [rows, CTX]), row], { axis: 0 }), col], { axis: 0 });
  const depth = g.int64(vocab.nVocab);
  const hot = (index: string, value: number) =>
    g.op("OneHot", [g.op("Unsqueeze", [index, g.int64([0])]), depth, g.float([0, value])], { axis: -1 });
  const good = g.op("Sum", [hot(pick(table), 10), hot(pick(d1), 11), hot(pick(d2), 10.5)]);
  const last = g.op("Where", [valid, good, hot(g.int64(vocab.error), 20)]);
  const n = g.op("Shape", [ids]);
  const logitsShape = g.op(
    "Concat",
    [g.int64([1]), g.op("Slice", [n, g.int64([1]), g.int64([2])]), g.int64([vocab.nVocab])],
    {
      axis: 0,
    },
  );
  g.output(g.op("Expand", [g.op("Reshape", [last, g.int64([1, 1, vocab.nVocab])]), logitsShape]), "logits", "float32", [
    "batch_size",
    "decoder_sequence_length",
    vocab.nVocab,
  ]);
  for (let layer = 0; layer < LAYERS; layer++)
    for (const part of ["decoder", "encoder"] as const)
      for (const kv of ["key", "value"] as const) {
        // Optimum's with-past decoder returns only the self-attention presents.
        if (kind === "with-past" && part === "encoder") continue;
        g.output(presents[`${layer}.${part}.${kv}`]!, `present.${layer}.${part}.${kv}`, "float32", [
          "batch_size",
          1,
          part === "decoder" ? "present_sequence_length" : "encoder_sequence_length_out",
          1,
        ]);
      }
  return g.toModel({ producerName: "sawt-test-whisper-hf", opset: 13 });
}

const SPECIAL_NAMES = (v: WhisperVocab): [string, number][] => [
  ["<|endoftext|>", v.eot],
  ["<|startoftranscript|>", v.sot],
  ["<|en|>", v.languages.en],
  ["<|ar|>", v.languages.ar],
  ["<|fr|>", v.languages.fr],
  ["<|translate|>", v.translate],
  ["<|transcribe|>", v.transcribe],
  ["<|startoflm|>", v.sotLm],
  ["<|startofprev|>", v.sotPrev],
  ["<|nospeech|>", v.noSpeech],
  ["<|notimestamps|>", v.noTimestamps],
  ...Array.from({ length: TIMESTAMPS }, (_, i): [string, number] => [
    `<|${(i * 0.02).toFixed(2)}|>`,
    v.timestampBegin + i,
  ]),
];

/** The JSON files of the layout (config, generation config, preprocessor config, tokenizer). */
export function hfWhisperJson(script: HfWhisperScript, vocab: WhisperVocab): Record<string, unknown> {
  const nMels = script.nMels ?? 80;
  return {
    "config.json": {
      model_type: "whisper",
      num_mel_bins: nMels,
      max_target_positions: CTX,
      vocab_size: vocab.nVocab,
      decoder_layers: LAYERS,
      d_model: 1,
    },
    "generation_config.json": {
      decoder_start_token_id: vocab.sot,
      eos_token_id: vocab.eot,
      is_multilingual: true,
      lang_to_id: { "<|en|>": vocab.languages.en, "<|ar|>": vocab.languages.ar, "<|fr|>": vocab.languages.fr },
      task_to_id: { translate: vocab.translate, transcribe: vocab.transcribe },
      no_timestamps_token_id: vocab.noTimestamps,
      prev_sot_token_id: vocab.sotPrev,
      suppress_tokens: [vocab.nonSpeech],
      begin_suppress_tokens: [vocab.blank, vocab.eot],
      max_initial_timestamp_index: MAX_INITIAL,
      forced_decoder_ids: [
        [1, null],
        [2, vocab.transcribe],
      ],
    },
    "preprocessor_config.json": {
      feature_extractor_type: "WhisperFeatureExtractor",
      feature_size: nMels,
      sampling_rate: 16000,
      n_fft: 400,
      hop_length: 160,
      chunk_length: 30,
    },
    "tokenizer.json": {
      model: {
        type: "BPE",
        vocab: Object.fromEntries(vocab.pieces.map((bytes, id) => [byteLevelPiece(bytes), id])),
        merges: [],
      },
      added_tokens: SPECIAL_NAMES(vocab).map(([content, id]) => ({ id, content, special: true })),
    },
  };
}

/** A written pack. */
export interface HfWhisperPack {
  readonly dir: string;
  readonly vocab: WhisperVocab;
  readonly files: readonly string[];
}

/** Writes the pack into `dir`. */
export async function writeHfWhisperPack(dir: string, script: HfWhisperScript): Promise<HfWhisperPack> {
  const vocab = hfWhisperVocab(script);
  const folder = script.folder ?? "";
  const suffix = script.suffix ?? "";
  await mkdir(join(dir, folder), { recursive: true });
  const models: [string, Uint8Array][] = [[`encoder_model${suffix}.onnx`, buildHfWhisperEncoder(script)]];
  if ((script.decoder ?? "merged") === "merged")
    models.push([`decoder_model_merged${suffix}.onnx`, buildHfWhisperDecoder(script, vocab, "merged")]);
  else {
    models.push([`decoder_model${suffix}.onnx`, buildHfWhisperDecoder(script, vocab, "first")]);
    models.push([`decoder_with_past_model${suffix}.onnx`, buildHfWhisperDecoder(script, vocab, "with-past")]);
  }
  const files: string[] = [];
  for (const [name, bytes] of models) {
    await Bun.write(join(dir, folder, name), bytes);
    files.push(`${folder}${name}`);
  }
  for (const [name, json] of Object.entries(hfWhisperJson(script, vocab))) {
    await Bun.write(join(dir, name), JSON.stringify(json));
    files.push(name);
  }
  return { dir, vocab, files };
}
