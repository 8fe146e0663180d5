/**
 * Constructed recognisers (NeMo CTC and RNNT/TDT contracts) whose scores are written by hand so
 * that a phrase loses narrowly: whatever the audio (at least one frame), the first word could be
 * «كلب» or «قلب»; «ك» scores a little better than «ق» (CTC log-probabilities −0.65 against −0.78;
 * joiner logits 2.0 against 1.8), so greedy reads «كلب» and a boost of «قلب» flips it.
 * The rest («كلب» then silence) is clear. Phrase-boosting tests and the boost bench use them.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { GraphBuilder } from "../onnx/builder.ts";

/** Vocabulary: `▁`, a few letters, `<blk>` last. */
export const NEAR_MISS_TOKENS = ["▁", "ك", "ق", "ل", "ب", "س", "م", "ع", "ر", "<blk>"] as const;
/** What greedy reads. */
export const NEAR_MISS_GREEDY = "كلب";
/** The phrase that loses narrowly. */
export const NEAR_MISS_PHRASE = "قلب";

const V = NEAR_MISS_TOKENS.length;
const BLANK = V - 1;
const id = (piece: string) => NEAR_MISS_TOKENS.indexOf(piece as (typeof NEAR_MISS_TOKENS)[number]);

/** Probabilities per output frame: the near miss, then «ل», «ب» with blanks between. */
function ctcFrames(): Float32Array {
  const rows: Array<Record<string, number>> = [{ ك: 0.52, ق: 0.46 }, {}, { ل: 0.97 }, {}, { ب: 0.97 }, {}];
  const out = new Float32Array(rows.length * V);
  for (const [t, row] of rows.entries()) {
    const rest = 1 - Object.values(row).reduce((a, b) => a + b, 0);
    const spare = 0.001;
    for (let k = 0; k < V; k++) out[t * V + k] = Math.log(spare);
    for (const [piece, p] of Object.entries(row)) out[t * V + id(piece)] = Math.log(p);
    out[t * V + BLANK] = Math.log(Math.max(spare, rest - spare * (V - 1 - Object.keys(row).length)));
  }
  return out;
}

/** The CTC model: `logprobs` [1, 6, V] whatever the features. */
export function buildNearMissCtc(): Uint8Array {
  const g = new GraphBuilder("near_miss_ctc");
  g.input("audio_signal", "float32", ["N", 80, "T"]);
  g.input("length", "int64", ["N"]);
  const frames = ctcFrames();
  const logprobs = g.op("Identity", [g.float([...frames], [1, frames.length / V, V])]);
  g.output(logprobs, "logprobs", "float32", [1, frames.length / V, V]);
  return g.toModel({
    producerName: "sawt-test-near-miss",
    metadata: { vocab_size: V - 1, normalize_type: "", subsampling_factor: 4, model_type: "EncDecCTCModelBPE" },
  });
}

/** Per encoder frame: joiner logits (V) and the tokens due on the frame (V, a 1 each). */
function transducerFrames(): { data: Float32Array; frames: number } {
  const rows: Array<Record<string, number>> = [{ ك: 2.0, ق: 1.8 }, { ل: 2.0 }, { ب: 2.0 }, {}];
  const width = 2 * V;
  const data = new Float32Array(width * rows.length);
  // Laid out [1, 2V, T] as the encoder returns it.
  for (const [t, row] of rows.entries()) {
    for (let k = 0; k < V; k++) data[k * rows.length + t] = k === BLANK ? (Object.keys(row).length ? 0 : 2) : -10;
    for (const [piece, logit] of Object.entries(row)) {
      data[id(piece) * rows.length + t] = logit;
      data[(V + id(piece)) * rows.length + t] = 1;
    }
  }
  return { data, frames: rows.length };
}

/** Encoder: constant frames [1, 2V, 4] and length 4. */
function buildEncoder(tdt: boolean): Uint8Array {
  const g = new GraphBuilder("near_miss_encoder");
  g.input("audio_signal", "float32", [1, 80, "T"]);
  g.input("length", "int64", [1]);
  const { data, frames } = transducerFrames();
  g.output(g.op("Identity", [g.float([...data], [1, 2 * V, frames])]), "outputs", "float32", [1, 2 * V, frames]);
  g.output(g.op("Identity", [g.int64([frames])]), "encoded_lengths", "int64", [1]);
  return g.toModel({
    producerName: "sawt-test-near-miss",
    metadata: {
      vocab_size: V - 1,
      subsampling_factor: 4,
      normalize_type: "",
      pred_rnn_layers: 1,
      pred_hidden: V,
      feat_dim: 80,
      model_type: "EncDecRNNTBPEModel",
      url: tdt ? "https://example.invalid/near-miss-tdt" : "https://example.invalid/near-miss-rnnt",
    },
  });
}

/** Prediction network: output [1, 2V, 1] = [one-hot(last token); state], the state passed on. */
function buildDecoder(): Uint8Array {
  const g = new GraphBuilder("near_miss_decoder");
  const targets = g.input("targets", "int32", [1, 1]);
  const targetLength = g.input("target_length", "int32", [1]);
  const h = g.input("states.1", "float32", [1, 1, V]);
  g.input("onnx::Slice_3", "float32", [1, 1, V]);
  const oneHot = g.op("OneHot", [g.op("Cast", [targets], { to: 7 }), g.int64(V), g.float([0, 1])], { axis: -1 });
  const out = g.op("Transpose", [g.op("Concat", [oneHot, h], { axis: 2 })], { perm: [0, 2, 1] });
  g.output(out, "outputs", "float32", [1, 2 * V, 1]);
  g.output(targetLength, "prednet_lengths", "int32", [1]);
  g.output(oneHot, "states", "float32", [1, 1, V]);
  g.output(h, "162", "float32", [1, 1, V]);
  return g.toModel({ producerName: "sawt-test-near-miss" });
}

/**
 * Joiner: the frame's logits, every token 20 lower once the last token is one due on this frame
 * (so greedy, which may take several symbols per frame, takes one); TDT adds durations 0–4
 * favouring 1.
 */
function buildJoiner(tdt: boolean): Uint8Array {
  const g = new GraphBuilder("near_miss_joiner");
  const encoder = g.input("encoder_outputs", "float32", [1, 2 * V, 1]);
  const decoder = g.input("decoder_outputs", "float32", [1, 2 * V, 1]);
  const e = g.op("Reshape", [encoder, g.int64([-1])]);
  const d = g.op("Reshape", [decoder, g.int64([-1])]);
  const part = (x: string, from: number, to: number) =>
    g.op("Slice", [x, g.int64([from]), g.int64([to]), g.int64([0])]);
  const due = g.op("ReduceSum", [g.op("Mul", [part(e, V, 2 * V), part(d, 0, V)])], { keepdims: 1 });
  const mask = g.float(Array.from({ length: V }, (_, k) => (k === BLANK ? 0 : 20)));
  const logits = g.op("Sub", [part(e, 0, V), g.op("Mul", [due, mask])]);
  const pieces = tdt ? [logits, g.float([0, 5, 0, 0, 0])] : [logits];
  const width = V + (tdt ? 5 : 0);
  const joined = tdt ? g.op("Concat", pieces, { axis: 0 }) : logits;
  g.output(g.op("Reshape", [joined, g.int64([1, 1, 1, width])]), "outputs", "float32", [1, 1, 1, width]);
  return g.toModel({ producerName: "sawt-test-near-miss" });
}

async function writeTokens(dir: string): Promise<void> {
  await Bun.write(join(dir, "tokens.txt"), NEAR_MISS_TOKENS.map((t, i) => `${t} ${i}\n`).join(""));
}

/** Writes the CTC pack (`model.onnx` + `tokens.txt`) into `dir`. */
export async function writeNearMissCtcPack(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await Bun.write(join(dir, "model.onnx"), buildNearMissCtc());
  await writeTokens(dir);
}

/** Writes the transducer pack (RNNT, or TDT with `tdt`) into `dir`. */
export async function writeNearMissTransducerPack(dir: string, options: { tdt?: boolean } = {}): Promise<void> {
  const tdt = options.tdt ?? false;
  await mkdir(dir, { recursive: true });
  await Bun.write(join(dir, "encoder.onnx"), buildEncoder(tdt));
  await Bun.write(join(dir, "decoder.onnx"), buildDecoder());
  await Bun.write(join(dir, "joiner.onnx"), buildJoiner(tdt));
  await writeTokens(dir);
}
