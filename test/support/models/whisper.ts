/**
 * A constructed Whisper pair in sherpa-onnx's export contract whose output can only come out
 * right when the runner does everything right.
 *
 * Encoder: `mel` [N, n_mels, 3000] → `n_layer_cross_k`, `n_layer_cross_v` [n_text_layer, N,
 * n_audio_ctx, n_text_state]. It picks a script row r by the audio's loudest frequency band
 * (`bands[r]`) and writes r into cross_k[0,0,0,0] and 100 into cross_v[0,0,0,0].
 *
 * Decoder: writes each fed token's id into its cache position (self_k layer 0 channel 0, self_v
 * last layer last channel) at [offset, offset + n) and keeps the rest of the caches as given. For
 * the last fed position q it checks that both caches hold, at positions 0..q, exactly the prompt
 * [sot, <|ar|>, transcribe, no_timestamps] followed by row r's tokens (a position-weighted
 * checksum) and that cross_v carries 100. If so the logits put 10 on row r's token number q − 3,
 * plus distractors a correct runner suppresses (blank and eot on the first step, then timestamp,
 * no-speech, non-speech, sot, translate, language and other special tokens at 10.5–11);
 * otherwise 20 on an error token `#`. A dropped cache, a wrong offset, an unsuppressed special
 * token or a wrong prompt therefore derails the rest of the text.
 *
 * Rows are split into byte chunks of `chunkBytes` (default 3), so Arabic letters (2 bytes each)
 * straddle tokens: text is right only if token bytes are joined before UTF-8 decoding.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { hzToMel, melToHz } from "../../../src/audio/features/mel.ts";
import { GraphBuilder, tensor } from "../onnx/builder.ts";

/** What the constructed pair says. */
export interface WhisperScript {
  /** One text per row. */
  readonly rows: readonly string[];
  /** Frequency band [lowHz, highHz) selecting each row. */
  readonly bands: readonly (readonly [number, number])[];
  /** Rows that never end (their tokens repeat): the runner's length limits must stop them. */
  readonly endlessRows?: readonly number[];
  readonly nMels?: 80 | 128;
  readonly nTextCtx?: number;
  readonly chunkBytes?: number;
  /** Timestamp tokens after `<|notimestamps|>` (default 10). */
  readonly timestamps?: number;
  /** Encoder metadata replacing the defaults (e.g. an English-only export). */
  readonly metadata?: Readonly<Record<string, string | number>>;
}

/** The pair's vocabulary: byte pieces, then Whisper's special tokens in their usual order. */
export interface WhisperVocab {
  readonly pieces: readonly Uint8Array[];
  readonly blank: number;
  readonly error: number;
  readonly nonSpeech: number;
  readonly eot: number;
  readonly sot: number;
  readonly languages: Readonly<Record<"en" | "ar" | "fr", number>>;
  readonly translate: number;
  readonly transcribe: number;
  readonly sotLm: number;
  readonly sotPrev: number;
  readonly noSpeech: number;
  readonly noTimestamps: number;
  readonly timestampBegin: number;
  readonly nVocab: number;
  /** Token ids of each row (without eot). */
  readonly rowIds: readonly (readonly number[])[];
}

const N_TEXT_LAYER = 2;
const N_TEXT_STATE = 4;
const N_AUDIO_CTX = 4;
const PROMPT_LENGTH = 4;
const TIMESTAMPS = 10;

/** Splits the rows into byte chunks and numbers the pieces and special tokens. */
export function whisperVocab(script: WhisperScript): WhisperVocab {
  const chunk = script.chunkBytes ?? 3;
  const ids = new Map<string, number>();
  const pieces: Uint8Array[] = [];
  const intern = (bytes: Uint8Array) => {
    const key = Buffer.from(bytes).toString("hex");
    let id = ids.get(key);
    if (id === undefined) {
      id = pieces.length;
      ids.set(key, id);
      pieces.push(bytes);
    }
    return id;
  };
  const rowIds = script.rows.map((row) => {
    const bytes = new TextEncoder().encode(row);
    const out: number[] = [];
    for (let i = 0; i < bytes.length; i += chunk) out.push(intern(bytes.slice(i, i + chunk)));
    return out;
  });
  const blank = intern(new TextEncoder().encode(" "));
  const error = intern(new TextEncoder().encode("#"));
  const nonSpeech = intern(new TextEncoder().encode("♪"));
  const eot = pieces.length;
  return {
    pieces,
    blank,
    error,
    nonSpeech,
    eot,
    sot: eot + 1,
    languages: { en: eot + 2, ar: eot + 3, fr: eot + 4 },
    translate: eot + 5,
    transcribe: eot + 6,
    sotLm: eot + 7,
    sotPrev: eot + 8,
    noSpeech: eot + 9,
    noTimestamps: eot + 10,
    timestampBegin: eot + 11,
    nVocab: eot + 11 + (script.timestamps ?? TIMESTAMPS),
    rowIds,
  };
}

/** Encoder metadata as sherpa-onnx's export-onnx.py writes it. */
export function whisperMetadata(script: WhisperScript, vocab: WhisperVocab): Record<string, string | number> {
  return {
    model_type: "whisper-constructed",
    version: "1",
    maintainer: "sawt-test",
    n_mels: script.nMels ?? 80,
    n_audio_ctx: N_AUDIO_CTX,
    n_audio_state: N_TEXT_STATE,
    n_audio_head: 1,
    n_audio_layer: 1,
    n_vocab: vocab.nVocab,
    n_text_ctx: script.nTextCtx ?? 64,
    n_text_state: N_TEXT_STATE,
    n_text_head: 1,
    n_text_layer: N_TEXT_LAYER,
    sot_sequence: [vocab.sot, vocab.languages.en, vocab.transcribe].join(","),
    all_language_tokens: [vocab.languages.en, vocab.languages.ar, vocab.languages.fr].join(","),
    all_language_codes: "en,ar,fr",
    sot: vocab.sot,
    sot_index: 0,
    eot: vocab.eot,
    blank_id: vocab.blank,
    is_multilingual: 1,
    no_speech: vocab.noSpeech,
    non_speech_tokens: String(vocab.nonSpeech),
    transcribe: vocab.transcribe,
    translate: vocab.translate,
    sot_prev: vocab.sotPrev,
    sot_lm: vocab.sotLm,
    no_timestamps: vocab.noTimestamps,
    ...script.metadata,
  };
}

/** One-hot float tensor of `dims` with a 1 at flat index `at`. */
function oneHot(dims: number[], at: number): ReturnType<typeof tensor> {
  const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
  data[at] = 1;
  return tensor(data, dims);
}

/**
 * The script row the audio selects, as a float scalar: the row whose frequency band holds the
 * loudest mean log-mel (bands map to mel bins by the bins' centre frequencies for `nMels`).
 */
export function scriptRow(g: GraphBuilder, mel: string, script: Pick<WhisperScript, "bands" | "nMels">): string {
  const nMels = script.nMels ?? 80;
  // Band weights: the mean over the mel bins whose centre frequency lies in each band.
  const rows = script.bands.length;
  const weights = new Float32Array(nMels * rows);
  const top = hzToMel(8000);
  for (const [r, [low, high]] of script.bands.entries()) {
    const inBand: number[] = [];
    for (let m = 0; m < nMels; m++) {
      const centre = melToHz((top * (m + 1)) / (nMels + 1));
      if (centre >= low && centre < high) inBand.push(m);
    }
    if (inBand.length === 0) throw new Error(`band ${low}–${high} Hz holds no mel bin`);
    for (const m of inBand) weights[m * rows + r] = 1 / inBand.length;
  }
  const meanMel = g.op("ReduceMean", [mel], { axes: [2], keepdims: 0 });
  const row = g.op("ArgMax", [g.op("MatMul", [meanMel, g.constant(tensor(weights, [nMels, rows]))])], {
    axis: 1,
    keepdims: 0,
  });
  const rowF = g.op("Cast", [g.op("Gather", [row, g.int64(0)], { axis: 0 })], { to: 1 });
  return rowF;
}

/** Builds the encoder. */
export function buildWhisperEncoder(script: WhisperScript, vocab: WhisperVocab): Uint8Array {
  const nMels = script.nMels ?? 80;
  const g = new GraphBuilder("whisper_encoder");
  const mel = g.input("mel", "float32", ["n_audio", nMels, 3000]);
  const rowF = scriptRow(g, mel, script);
  const select = g.constant(oneHot([N_TEXT_LAYER, 1, N_AUDIO_CTX, N_TEXT_STATE], 0));
  g.output(g.op("Mul", [select, rowF]), "n_layer_cross_k", "float32", [
    N_TEXT_LAYER,
    "n_audio",
    N_AUDIO_CTX,
    N_TEXT_STATE,
  ]);
  g.output(g.op("Mul", [select, g.float(100)]), "n_layer_cross_v", "float32", [
    N_TEXT_LAYER,
    "n_audio",
    N_AUDIO_CTX,
    N_TEXT_STATE,
  ]);
  return g.toModel({ producerName: "sawt-test-whisper", opset: 13, metadata: whisperMetadata(script, vocab) });
}

/** The token every row emits at each position after the prompt (eot-padded, endless rows cycled). */
function scriptTable(script: WhisperScript, vocab: WhisperVocab, width: number): number[][] {
  return vocab.rowIds.map((ids, r) =>
    Array.from({ length: width }, (_, c) =>
      script.endlessRows?.includes(r) ? ids[c % ids.length]! : (ids[c] ?? vocab.eot),
    ),
  );
}

/** Builds the decoder. */
export function buildWhisperDecoder(script: WhisperScript, vocab: WhisperVocab): Uint8Array {
  const ctx = script.nTextCtx ?? 64;
  const width = ctx;
  const table = scriptTable(script, vocab, width);
  const prompt = [vocab.sot, vocab.languages.ar, vocab.transcribe, vocab.noTimestamps];
  // Position-weighted checksum of each row's full sequence up to every last position q.
  const expected = new Float32Array(table.length * ctx);
  for (const [r, ids] of table.entries()) {
    const sequence = [...prompt, ...ids];
    let sum = 0;
    for (let q = 0; q < ctx; q++) {
      sum += (q + 1) * sequence[q]!;
      expected[r * ctx + q] = sum;
    }
  }
  // Tokens a correct runner suppresses, put above the script's token: [at 11, at 10.5] per column.
  const early: [number, number][] = [
    [vocab.blank, vocab.eot],
    [vocab.timestampBegin + 3, vocab.noSpeech],
    [vocab.nonSpeech, vocab.sot],
    [vocab.noTimestamps, vocab.translate],
    [vocab.sotPrev, vocab.languages.en],
  ];
  const distractors = (c: number): [number, number] => early[c] ?? [vocab.noSpeech, vocab.sotLm];

  const g = new GraphBuilder("whisper_decoder");
  const cacheDims = [N_TEXT_LAYER, "n_audio", ctx, N_TEXT_STATE];
  const crossDims = [N_TEXT_LAYER, "n_audio", N_AUDIO_CTX, N_TEXT_STATE];
  const tokens = g.input("tokens", "int64", ["n_audio", "n_tokens"]);
  const inK = g.input("in_n_layer_self_k_cache", "float32", cacheDims);
  const inV = g.input("in_n_layer_self_v_cache", "float32", cacheDims);
  const crossK = g.input("n_layer_cross_k", "float32", crossDims);
  const crossV = g.input("n_layer_cross_v", "float32", crossDims);
  const offset = g.input("offset", "int64", [1]);

  const tok = g.op("Gather", [tokens, g.int64(0)], { axis: 0 });
  const nShape = g.op("Shape", [tok]);
  const n = g.op("Gather", [nShape, g.int64(0)], { axis: 0 });
  const off = g.op("Gather", [offset, g.int64(0)], { axis: 0 });
  const positions = g.op("Add", [g.op("Range", [g.int64(0), n, g.int64(1)]), off]);
  const ctxRange = g.int64(Array.from({ length: ctx }, (_, i) => i));
  const place = g.op("Cast", [g.op("Equal", [g.op("Unsqueeze", [positions, g.int64([1])]), ctxRange])], { to: 1 });
  const written = g.op("Reshape", [
    g.op("MatMul", [g.op("Unsqueeze", [g.op("Cast", [tok], { to: 1 }), g.int64([0])]), place]),
    g.int64([1, 1, ctx, 1]),
  ]);
  const mask = g.op("Reshape", [g.op("ReduceSum", [place, g.int64([0])], { keepdims: 1 }), g.int64([1, 1, ctx, 1])]);
  const update = (cache: string, select: string) =>
    g.op("Add", [
      g.op("Mul", [cache, g.op("Sub", [g.float(1), g.op("Mul", [mask, select])])]),
      g.op("Mul", [written, select]),
    ]);
  const selectK = g.constant(oneHot([N_TEXT_LAYER, 1, 1, N_TEXT_STATE], 0));
  const selectV = g.constant(oneHot([N_TEXT_LAYER, 1, 1, N_TEXT_STATE], N_TEXT_LAYER * N_TEXT_STATE - 1));
  const outK = update(inK, selectK);
  const outV = update(inV, selectV);

  // Checksums over positions 0..q of what the caches now hold.
  const q = g.op("Sub", [g.op("Add", [off, n]), g.int64(1)]);
  const weights = g.op("Mul", [
    g.op("Cast", [g.op("LessOrEqual", [ctxRange, q])], { to: 1 }),
    g.float(Array.from({ length: ctx }, (_, i) => i + 1)),
  ]);
  const column = (cache: string, select: string) =>
    g.op("ReduceSum", [g.op("Mul", [cache, select]), g.int64([0, 1, 3])], { keepdims: 0 });
  const checksum = (cache: string, select: string) =>
    g.op("ReduceSum", [g.op("Mul", [column(cache, select), weights])], { keepdims: 0 });
  const selectCross = g.constant(oneHot([N_TEXT_LAYER, 1, N_AUDIO_CTX, N_TEXT_STATE], 0));
  const crossScalar = (value: string) => g.op("ReduceSum", [g.op("Mul", [value, selectCross])], { keepdims: 0 });
  const rows = table.length;
  const row = g.op("Cast", [g.op("Clip", [g.op("Round", [crossScalar(crossK)]), g.float(0), g.float(rows - 1)])], {
    to: 7,
  });
  const lastPosition = g.op("Min", [q, g.int64(ctx - 1)]);
  const expect = g.op(
    "Gather",
    [g.op("Gather", [g.constant(tensor(expected, [rows, ctx])), row], { axis: 0 }), lastPosition],
    { axis: 0 },
  );
  const near = (a: string, b: string) => g.op("Less", [g.op("Abs", [g.op("Sub", [a, b])]), g.float(0.5)]);
  const valid = g.op("And", [
    g.op("And", [near(checksum(outK, selectK), expect), near(checksum(outV, selectV), expect)]),
    near(crossScalar(crossV), g.float(100)),
  ]);

  const col = g.op("Max", [
    g.op("Min", [g.op("Sub", [q, g.int64(PROMPT_LENGTH - 1)]), g.int64(width - 1)]),
    g.int64(0),
  ]);
  const pick = (values: readonly number[][]) =>
    g.op("Gather", [g.op("Gather", [g.int64(values.flat(), [values.length, width]), row], { axis: 0 }), col], {
      axis: 0,
    });
  const pickColumn = (values: readonly number[]) => g.op("Gather", [g.int64(values), col], { axis: 0 });
  const depth = g.int64(vocab.nVocab);
  const hot = (index: string, value: number) =>
    g.op("OneHot", [g.op("Unsqueeze", [index, g.int64([0])]), depth, g.float([0, value])], { axis: -1 });
  const good = g.op("Sum", [
    hot(pick(table), 10),
    hot(pickColumn(Array.from({ length: width }, (_, c) => distractors(c)[0])), 11),
    hot(pickColumn(Array.from({ length: width }, (_, c) => distractors(c)[1])), 10.5),
  ]);
  const bad = hot(g.int64(vocab.error), 20);
  // Both branches are [1, vocab].
  const last = g.op("Where", [valid, good, bad]);
  const logitsShape = g.op("Concat", [g.int64([1]), nShape, g.int64([vocab.nVocab])], { axis: 0 });
  const logits = g.op("Expand", [g.op("Reshape", [last, g.int64([1, 1, vocab.nVocab])]), logitsShape]);
  g.output(logits, "logits", "float32", ["n_audio", "n_tokens", vocab.nVocab]);
  g.output(outK, "out_n_layer_self_k_cache", "float32", cacheDims);
  g.output(outV, "out_n_layer_self_v_cache", "float32", cacheDims);
  return g.toModel({ producerName: "sawt-test-whisper", opset: 13 });
}

/** A written Whisper pack. */
export interface WhisperPack {
  readonly encoderPath: string;
  readonly decoderPath: string;
  readonly tokensPath: string;
  readonly vocab: WhisperVocab;
}

/** Writes `<prefix>-encoder.onnx`, `<prefix>-decoder.onnx` and `<prefix>-tokens.txt` into `dir`. */
export async function writeWhisperPack(
  dir: string,
  script: WhisperScript,
  prefix = "constructed",
): Promise<WhisperPack> {
  const vocab = whisperVocab(script);
  await mkdir(dir, { recursive: true });
  const encoderPath = join(dir, `${prefix}-encoder.onnx`);
  const decoderPath = join(dir, `${prefix}-decoder.onnx`);
  const tokensPath = join(dir, `${prefix}-tokens.txt`);
  await Bun.write(encoderPath, buildWhisperEncoder(script, vocab));
  await Bun.write(decoderPath, buildWhisperDecoder(script, vocab));
  await Bun.write(
    tokensPath,
    vocab.pieces.map((bytes, id) => `${Buffer.from(bytes).toString("base64")} ${id}\n`).join(""),
  );
  return { encoderPath, decoderPath, tokensPath, vocab };
}
