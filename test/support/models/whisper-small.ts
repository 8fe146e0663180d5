/**
 * A constructed Whisper pack in the Hugging Face layout (../models/whisper-hf.ts has the contract)
 * with Whisper-small's shape and seeded random weights, so benchmarks measure Sawt and raw
 * onnxruntime on the work an Arabic Whisper-small fine-tune does, without downloading one
 * (issue 38). fp32, single files, as onnx-community publishes `encoder_model.onnx` and
 * `decoder_model_merged.onnx`: about 350 + 610 MB.
 *
 * Shape ({@link WHISPER_SMALL}): encoder of two convolutions (80 mels → 768, the second of stride
 * 2: 3000 frames → 1500) and 12 pre-norm transformer layers (12 heads of 64, MLP 3072, GELU);
 * decoder of 12 layers (self-attention with a growing cache, cross-attention over the encoder
 * output, MLP 3072), token embedding 51,865 × 768 tied to the output projection, 448 positions.
 *
 * The merged decoder skips the cross-attention projections on cached steps without an `If`: it
 * projects the first `(1 − use_cache_branch) × frames` rows of `encoder_hidden_states` (all of them
 * on the first step, none after) and appends them to the fed encoder cache, which costs what an
 * export's cached branch costs. Random weights would decode random tokens of random length, so
 * the logits get +1000 on a fixed sequence by position ({@link forcedTokens}): `<|0.00|>`, text,
 * a closing timestamp, end of text. Every step still runs the whole model; the sequence only makes
 * the number of steps and the text (no temperature fallback) the same on every run.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { byteLevelPiece } from "../../../src/asr/whisper-hf/tokenizer.ts";
import { testCacheDir } from "../fixtures/cache.ts";
import { GraphBuilder, tensor, writeModelPieces } from "../onnx/builder.ts";

/** Layer sizes of a constructed Whisper. */
export interface WhisperShape {
  readonly layers: number;
  readonly dModel: number;
  readonly heads: number;
  readonly ffn: number;
  readonly nMels: number;
  /** Encoder output frames (the 3000 mel frames of 30 s halved). */
  readonly audioCtx: number;
  readonly textCtx: number;
  readonly vocab: number;
}

/** openai/whisper-small's sizes (config.json of the Hugging Face upload). */
export const WHISPER_SMALL: WhisperShape = {
  layers: 12,
  dModel: 768,
  heads: 12,
  ffn: 3072,
  nMels: 80,
  audioCtx: 1500,
  textCtx: 448,
  vocab: 51865,
};

/** Text tokens decoded per window (about 20 s of Arabic speech), between the two timestamps. */
export const FORCED_TEXT_TOKENS = 96;

/** Whisper's multilingual special-token ids (its vocabulary of 51,865). */
const EOT = 50257;
const SOT = 50258;
const LANGUAGES: Readonly<Record<string, number>> = { en: 50259, ar: 50272, fr: 50265 };
const TRANSLATE = 50358;
const TRANSCRIBE = 50359;
const SOT_LM = 50360;
const SOT_PREV = 50361;
const NO_SPEECH = 50362;
const NO_TIMESTAMPS = 50363;
const TIMESTAMP_BEGIN = 50364;
const PROMPT = 3;

/** The emitted tokens the decoder is pushed to: `<|0.00|>`, text, `<|19.20|>`, eot. */
export function forcedTokens(): number[] {
  const text = Array.from({ length: FORCED_TEXT_TOKENS }, (_, k) => 1000 + ((k * 7919) % 40000));
  return [TIMESTAMP_BEGIN, ...text, TIMESTAMP_BEGIN + 960, EOT];
}

/** Seeded uniform weights (mulberry32), scaled so each layer keeps unit-order activations. */
class Weights {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float32 tensor of `dims` uniform in ±`scale`. */
  uniform(dims: readonly number[], scale: number) {
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
    let s = this.state;
    for (let i = 0; i < data.length; i++) {
      s = (s + 0x6d2b79f5) >>> 0;
      let t = Math.imul(s ^ (s >>> 15), s | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      data[i] = ((((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1) * scale;
    }
    this.state = s;
    return tensor(data, dims);
  }
}

/** Layer helpers over one graph: every weight a named initializer. */
class Layers {
  private n = 0;

  constructor(
    readonly g: GraphBuilder,
    private readonly w: Weights,
    private readonly shape: WhisperShape,
  ) {}

  weight(dims: readonly number[], scale: number): string {
    return this.g.initializer(`w${this.n++}`, this.w.uniform(dims, scale));
  }

  linear(x: string, inputs: number, outputs: number, bias = true): string {
    const y = this.g.op("MatMul", [x, this.weight([inputs, outputs], Math.sqrt(3 / inputs))]);
    return bias ? this.g.op("Add", [y, this.weight([outputs], 0.02)]) : y;
  }

  norm(x: string): string {
    const d = this.shape.dModel;
    const scale = this.g.float(new Array<number>(d).fill(1), [d]);
    const bias = this.g.float(new Array<number>(d).fill(0), [d]);
    return this.g.op("LayerNormalization", [x, scale, bias], { axis: -1, epsilon: 1e-5 });
  }

  gelu(x: string): string {
    const { g } = this;
    const erf = g.op("Erf", [g.op("Mul", [x, g.float(Math.SQRT1_2)])]);
    return g.op("Mul", [g.op("Mul", [x, g.float(0.5)]), g.op("Add", [erf, g.float(1)])]);
  }

  /** [1, T, d] → [1, heads, T, head_dim]. */
  split(x: string): string {
    const { heads, dModel } = this.shape;
    const r = this.g.op("Reshape", [x, this.g.int64([0, 0, heads, dModel / heads])]);
    return this.g.op("Transpose", [r], { perm: [0, 2, 1, 3] });
  }

  /** Scaled dot-product attention of split heads, merged back to [1, T, d]; `mask` added to the scores. */
  attend(q: string, k: string, v: string, mask?: string): string {
    const { g, shape } = this;
    const scaled = g.op("Mul", [q, g.float(1 / Math.sqrt(shape.dModel / shape.heads))]);
    let scores = g.op("MatMul", [scaled, g.op("Transpose", [k], { perm: [0, 1, 3, 2] })]);
    if (mask) scores = g.op("Add", [scores, mask]);
    const out = g.op("MatMul", [g.op("Softmax", [scores], { axis: -1 }), v]);
    const merged = g.op("Transpose", [out], { perm: [0, 2, 1, 3] });
    return g.op("Reshape", [merged, g.int64([0, 0, shape.dModel])]);
  }

  mlp(x: string): string {
    const { dModel, ffn } = this.shape;
    return this.linear(this.gelu(this.linear(x, dModel, ffn)), ffn, dModel);
  }
}

/** The encoder: `input_features` [1, n_mels, 3000] → `last_hidden_state` [1, 1500, d]. */
export function buildWhisperEncoder(shape: WhisperShape, seed = 1): GraphBuilder {
  const g = new GraphBuilder("whisper_small_shaped_encoder");
  const l = new Layers(g, new Weights(seed), shape);
  const d = shape.dModel;
  const features = g.input("input_features", "float32", ["batch_size", shape.nMels, 3000]);
  const conv = (x: string, inputs: number, stride: number) =>
    l.gelu(
      g.op("Conv", [x, l.weight([d, inputs, 3], Math.sqrt(3 / (inputs * 3))), l.weight([d], 0.02)], {
        pads: [1, 1],
        strides: [stride],
      }),
    );
  const frames = g.op("Transpose", [conv(conv(features, shape.nMels, 1), d, 2)], { perm: [0, 2, 1] });
  let h = g.op("Add", [frames, l.weight([shape.audioCtx, d], 0.1)]);
  for (let layer = 0; layer < shape.layers; layer++) {
    const a = l.norm(h);
    const attention = l.attend(
      l.split(l.linear(a, d, d)),
      l.split(l.linear(a, d, d, false)),
      l.split(l.linear(a, d, d)),
    );
    h = g.op("Add", [h, l.linear(attention, d, d)]);
    h = g.op("Add", [h, l.mlp(l.norm(h))]);
  }
  g.output(l.norm(h), "last_hidden_state", "float32", ["batch_size", shape.audioCtx, d]);
  return g;
}

/** The merged decoder of the Hugging Face cache protocol (src/asr/seq2seq/kv-decoder.ts). */
export function buildWhisperMergedDecoder(shape: WhisperShape, seed = 2): GraphBuilder {
  const g = new GraphBuilder("whisper_small_shaped_decoder_merged");
  const l = new Layers(g, new Weights(seed), shape);
  const { dModel: d, heads, layers, vocab } = shape;
  const ids = g.input("input_ids", "int64", ["batch_size", "decoder_sequence_length"]);
  const hidden = g.input("encoder_hidden_states", "float32", ["batch_size", "encoder_sequence_length", d]);
  const useCache = g.input("use_cache_branch", "bool", [1]);
  const cacheDims = (len: string) => ["batch_size", heads, len, d / heads];
  const past = (layer: number, part: string, kind: string) =>
    g.input(`past_key_values.${layer}.${part}.${kind}`, "float32", cacheDims(`past_${part}_sequence_length`));
  const dim = (value: string, axis: number) => g.op("Gather", [g.op("Shape", [value]), g.int64(axis)], { axis: 0 });
  const inputs = Array.from({ length: layers }, (_, layer) => ({
    selfK: past(layer, "decoder", "key"),
    selfV: past(layer, "decoder", "value"),
    crossK: past(layer, "encoder", "key"),
    crossV: past(layer, "encoder", "value"),
  }));
  const pastLength = dim(inputs[0]!.selfK, 2);
  const total = g.op("Add", [pastLength, dim(ids, 1)]);
  const positions = g.op("Range", [pastLength, total, g.int64(1)]);
  const embedding = l.weight([vocab, d], Math.sqrt(3 / d));
  let x = g.op("Add", [
    g.op("Gather", [embedding, ids], { axis: 0 }),
    g.op("Gather", [l.weight([shape.textCtx, d], 0.1), positions], { axis: 0 }),
  ]);
  // Causal mask [n, past + n]: a position sees itself and everything before it.
  const columns = g.op("Unsqueeze", [g.op("Range", [g.int64(0), total, g.int64(1)]), g.int64([0])]);
  const rows = g.op("Unsqueeze", [positions, g.int64([1])]);
  const mask = g.op("Where", [g.op("Greater", [columns, rows]), g.float(-1e9), g.float(0)]);
  // The encoder rows projected this step: all of them without a cache, none with one.
  const fresh = g.op("Sub", [g.int64(1), g.op("Cast", [g.op("Reshape", [useCache, g.int64([])])], { to: 7 })]);
  const rowsToProject = g.op("Unsqueeze", [g.op("Mul", [fresh, dim(hidden, 1)]), g.int64([0])]);
  const projected = g.op("Slice", [hidden, g.int64([0]), rowsToProject, g.int64([1])]);
  const presents: [string, string][] = [];
  for (const [layer, past] of inputs.entries()) {
    const a = l.norm(x);
    const q = l.split(l.linear(a, d, d));
    const selfK = g.op("Concat", [past.selfK, l.split(l.linear(a, d, d, false))], { axis: 2 });
    const selfV = g.op("Concat", [past.selfV, l.split(l.linear(a, d, d))], { axis: 2 });
    x = g.op("Add", [x, l.linear(l.attend(q, selfK, selfV, mask), d, d)]);
    const c = l.norm(x);
    const crossQ = l.split(l.linear(c, d, d));
    const crossK = g.op("Concat", [past.crossK, l.split(l.linear(projected, d, d, false))], { axis: 2 });
    const crossV = g.op("Concat", [past.crossV, l.split(l.linear(projected, d, d))], { axis: 2 });
    x = g.op("Add", [x, l.linear(l.attend(crossQ, crossK, crossV), d, d)]);
    x = g.op("Add", [x, l.mlp(l.norm(x))]);
    presents.push([`present.${layer}.decoder.key`, selfK], [`present.${layer}.decoder.value`, selfV]);
    presents.push([`present.${layer}.encoder.key`, crossK], [`present.${layer}.encoder.value`, crossV]);
  }
  const flat = g.op("Reshape", [l.norm(x), g.int64([-1, d])]);
  const scores = g.op("Gemm", [flat, embedding], { transB: 1 });
  const forced = new BigInt64Array(shape.textCtx).fill(BigInt(EOT));
  for (const [k, id] of forcedTokens().entries())
    if (PROMPT - 1 + k < shape.textCtx) forced[PROMPT - 1 + k] = BigInt(id);
  const target = g.op("Gather", [g.constant(tensor(forced, [shape.textCtx])), positions], { axis: 0 });
  const push = g.op("OneHot", [target, g.int64(vocab), g.float([0, 1000])], { axis: -1 });
  g.output(g.op("Reshape", [g.op("Add", [scores, push]), g.int64([1, -1, vocab])]), "logits", "float32", [
    "batch_size",
    "decoder_sequence_length",
    vocab,
  ]);
  for (const [name, value] of presents)
    g.output(
      value,
      name,
      "float32",
      cacheDims(name.includes("decoder") ? "present_sequence_length" : "encoder_sequence_length_out"),
    );
  return g;
}

/** A piece of text per ordinary token id: a few seeded letters (text of these compresses like prose). */
function pieces(count: number): string[] {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  let s = 7;
  const next = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s >>> 8;
  };
  return Array.from({ length: count }, (_, id) => {
    let word = id < 256 ? "" : " ";
    for (let i = 0, n = 2 + (next() % 4); i < n; i++) word += letters[next() % letters.length];
    return `${word}${id.toString(36)}`;
  });
}

/** The pack's JSON files: Whisper's real special-token layout, a constructed vocabulary. */
export function whisperSmallJson(shape: WhisperShape): Record<string, unknown> {
  const special: [string, number][] = [
    ["<|endoftext|>", EOT],
    ["<|startoftranscript|>", SOT],
    ...Object.entries(LANGUAGES).map(([code, id]): [string, number] => [`<|${code}|>`, id]),
    ["<|translate|>", TRANSLATE],
    ["<|transcribe|>", TRANSCRIBE],
    ["<|startoflm|>", SOT_LM],
    ["<|startofprev|>", SOT_PREV],
    ["<|nospeech|>", NO_SPEECH],
    ["<|notimestamps|>", NO_TIMESTAMPS],
    ...Array.from({ length: shape.vocab - TIMESTAMP_BEGIN }, (_, i): [string, number] => [
      `<|${(i * 0.02).toFixed(2)}|>`,
      TIMESTAMP_BEGIN + i,
    ]),
  ];
  const encoder = new TextEncoder();
  const vocab = Object.fromEntries(pieces(EOT).map((text, id) => [byteLevelPiece(encoder.encode(text)), id]));
  return {
    "config.json": {
      model_type: "whisper",
      num_mel_bins: shape.nMels,
      max_target_positions: shape.textCtx,
      vocab_size: shape.vocab,
      decoder_layers: shape.layers,
      d_model: shape.dModel,
    },
    "generation_config.json": {
      decoder_start_token_id: SOT,
      eos_token_id: EOT,
      is_multilingual: true,
      lang_to_id: Object.fromEntries(Object.entries(LANGUAGES).map(([code, id]) => [`<|${code}|>`, id])),
      task_to_id: { translate: TRANSLATE, transcribe: TRANSCRIBE },
      no_timestamps_token_id: NO_TIMESTAMPS,
      prev_sot_token_id: SOT_PREV,
      suppress_tokens: [1, 2, 7, 8, 9],
      begin_suppress_tokens: [220, EOT],
      max_initial_timestamp_index: 50,
    },
    "preprocessor_config.json": {
      feature_extractor_type: "WhisperFeatureExtractor",
      feature_size: shape.nMels,
      sampling_rate: 16000,
      n_fft: 400,
      hop_length: 160,
      chunk_length: 30,
    },
    "tokenizer.json": {
      model: { type: "BPE", vocab, merges: [] },
      added_tokens: special.map(([content, id]) => ({ id, content, special: true })),
    },
  };
}

/** Bumped whenever the graphs or files change, so a cached pack of an older build is not reused. */
const VERSION = 1;

/**
 * The Whisper-small-shaped pack folder in the test cache, built on first use (about a minute and
 * 1 GB of disk; the weights are written straight from their arrays, never assembled in memory).
 */
export async function whisperSmallPackDir(cacheDir = testCacheDir()): Promise<string> {
  const dir = join(cacheDir, "derived", `whisper-small-shaped-v${VERSION}`);
  if (existsSync(join(dir, "tokenizer.json"))) return dir;
  const partial = `${dir}.${process.pid}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  await writeModelPieces(join(partial, "encoder_model.onnx"), buildWhisperEncoder(WHISPER_SMALL).toModelPieces());
  await writeModelPieces(
    join(partial, "decoder_model_merged.onnx"),
    buildWhisperMergedDecoder(WHISPER_SMALL).toModelPieces(),
  );
  // tokenizer.json last: its presence marks a complete pack.
  const files = Object.entries(whisperSmallJson(WHISPER_SMALL)).sort(([a], [b]) =>
    a === "tokenizer.json" ? 1 : b === "tokenizer.json" ? -1 : 0,
  );
  for (const [name, json] of files) writeFileSync(join(partial, name), JSON.stringify(json));
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
  return dir;
}
