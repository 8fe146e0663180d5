/**
 * Constructed NeMo transducers (sherpa-onnx's offline layout: encoder.onnx, decoder.onnx,
 * joiner.onnx, tokens.txt, encoder metadata) that read the tone letters of
 * {@link letterToneAudio} back, RNNT and TDT. Their outputs depend on the prediction network's
 * output AND its carried states, and (TDT) on the durations, so a search that gets any of them
 * wrong reads wrong text:
 *
 * - encoder: per output frame (every 4th fbank frame) and token k (`▁` + letters): whether k's
 *   tone sounds (s), starts here (on = s and not s one frame earlier), starts again shortly after
 *   it last sounded (rep: a doubled letter across Piper's pad), and whether any letter starts 1–4
 *   frames ahead (nx, for TDT durations). RNNT frames carry [on, on, rep, nx]; TDT [s, on, rep, nx].
 * - decoder (prediction net): targets int32 [1,1], target_length, two states [1, 1, V] →
 *   output [1, 2V, 1] = [one-hot(target); incoming state h], next h = one-hot(target), next c = h.
 *   So the output holds the last token and, only if the states are carried, the one before.
 * - joiner: token k scores 2·g_k − 20·sup_k, blank 0.5, where sup_k = on_k · last_k ·
 *   (1 − rep_k · (1 − prev_k)): a token just emitted at this onset is not emitted again, unless
 *   it is a doubled letter emitted once so far. TDT adds 5 duration logits: stay (0) while the
 *   onset's token is still due, else jump to the next onset (1–4 frames; 4 when none is near).
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { GraphBuilder } from "../onnx/builder.ts";
import { BLANK_TONES, LETTER_TONES, SPACE_TONE, tonePeak } from "./ctc.ts";
import { toneFrequency } from "./tone-voice.ts";

/** Encoder output frames keep one fbank frame in four. */
export const TRANSDUCER_SUBSAMPLING = 4;
const FEAT_DIM = 80;
const LOOKAHEAD = 4;

/** Vocabulary: `▁`, the letters, `<blk>` last. */
export function transducerTokens(): string[] {
  return ["▁", ...LETTER_TONES.map(([letter]) => letter), "<blk>"];
}

const K = transducerTokens().length - 1;
const V = K + 1;

/** x shifted `n` frames later along axis 2 (zeros enter at the start), same length. */
function later(g: GraphBuilder, x: string, channels: number, n: number): string {
  const padded = g.op("Pad", [x, g.int64([0, 0, n, 0, 0, 0])]);
  const frames = g.op("Slice", [g.op("Shape", [x]), g.int64([2]), g.int64([3])]);
  return g.op("Slice", [padded, g.int64([0]), frames, g.int64([2])]);
}

/** x shifted `n` frames earlier along axis 2 (zeros enter at the end), same length. */
function earlier(g: GraphBuilder, x: string, n: number): string {
  const padded = g.op("Pad", [x, g.int64([0, 0, 0, 0, 0, n])]);
  return g.op("Slice", [padded, g.int64([n]), g.int64([1 << 30]), g.int64([2])]);
}

/** The encoder graph's frame features; `sustained` picks s (TDT) or on (RNNT) as the token score. */
export function buildToneEncoder(sustained: boolean, metadata: Record<string, string | number>): Uint8Array {
  const g = new GraphBuilder("tone_transducer_encoder");
  const features = g.input("audio_signal", "float32", [1, FEAT_DIM, "T"]);
  const length = g.input("length", "int64", [1]);
  const ids = [SPACE_TONE, ...LETTER_TONES.map(([, id]) => id)];
  // Relative log energy of each token's tone bin, and of the pad/bos/eos tones (silence for us).
  const relative = (tones: readonly number[]) => {
    const bins = g.int64(tones.map((id) => tonePeak(toneFrequency(id)).bin));
    const levels = g.float(
      tones.map((id) => tonePeak(toneFrequency(id)).level),
      [1, tones.length, 1],
    );
    const energy = g.op("Sub", [g.op("Gather", [features, bins], { axis: 1 }), levels]);
    return g.op("Slice", [energy, g.int64([0]), g.int64([1 << 30]), g.int64([2]), g.int64([TRANSDUCER_SUBSAMPLING])]);
  };
  const kept = relative(ids);
  const loudest = g.op("ReduceMax", [g.op("Concat", [kept, relative([...BLANK_TONES])], { axis: 1 })], {
    axes: [1],
    keepdims: 1,
  });
  // A token sounds where its tone is near full level and no other tone is louder (tones leak into
  // neighbouring mel bins, so the level alone would light two tokens).
  const s = g.op(
    "Cast",
    [g.op("And", [g.op("Greater", [kept, g.float(-3)]), g.op("GreaterOrEqual", [kept, loudest])])],
    { to: 1 },
  );
  const on = g.op("Mul", [s, g.op("Sub", [g.float(1), later(g, s, K, 1)])]);
  const recent = g.op("Max", [later(g, s, K, 2), later(g, s, K, 3), later(g, s, K, 4)]);
  const rep = g.op("Mul", [on, recent]);
  const anyOnset = g.op("ReduceMax", [on], { axes: [1], keepdims: 1 });
  const ahead = Array.from({ length: LOOKAHEAD }, (_, j) => earlier(g, anyOnset, j + 1));
  const frames = g.op("Concat", [sustained ? s : on, on, rep, ...ahead], { axis: 1 });
  g.output(frames, "outputs", "float32", [1, 3 * K + LOOKAHEAD, "T_out"]);
  const outLength = g.op("Div", [
    g.op("Add", [length, g.int64(TRANSDUCER_SUBSAMPLING - 1)]),
    g.int64(TRANSDUCER_SUBSAMPLING),
  ]);
  g.output(outLength, "encoded_lengths", "int64", [1]);
  return g.toModel({ producerName: "sawt-test-tone-transducer", metadata });
}

/** The prediction network: remembers the last token and, through its states, the one before. */
export function buildToneDecoder(): Uint8Array {
  const g = new GraphBuilder("tone_transducer_decoder");
  const targets = g.input("targets", "int32", [1, 1]);
  const targetLength = g.input("target_length", "int32", [1]);
  const h = g.input("states.1", "float32", [1, 1, V]);
  g.input("onnx::Slice_3", "float32", [1, 1, V]);
  const target64 = g.op("Cast", [targets], { to: 7 });
  const oneHot = g.op("OneHot", [target64, g.int64(V), g.float([0, 1])], { axis: -1 });
  const out = g.op("Transpose", [g.op("Concat", [oneHot, h], { axis: 2 })], { perm: [0, 2, 1] });
  g.output(out, "outputs", "float32", [1, 2 * V, 1]);
  g.output(targetLength, "prednet_lengths", "int32", [1]);
  g.output(oneHot, "states", "float32", [1, 1, V]);
  g.output(h, "162", "float32", [1, 1, V]);
  return g.toModel({ producerName: "sawt-test-tone-transducer" });
}

/**
 * The joiner; with `tdt` it also scores durations 0–4. `scale` multiplies the token and blank
 * logits (the greedy choice is unchanged): 1 leaves every choice close (blank 0.5 against 27
 * tokens at 0), a larger scale makes the model as sure as a trained one is (phrase-boosting bench).
 */
export function buildToneJoiner(tdt: boolean, scale = 1): Uint8Array {
  const g = new GraphBuilder("tone_transducer_joiner");
  const encoder = g.input("encoder_outputs", "float32", [1, 3 * K + LOOKAHEAD, 1]);
  const decoder = g.input("decoder_outputs", "float32", [1, 2 * V, 1]);
  const e = g.op("Reshape", [encoder, g.int64([-1])]);
  const d = g.op("Reshape", [decoder, g.int64([-1])]);
  const part = (x: string, from: number, to: number) =>
    g.op("Slice", [x, g.int64([from]), g.int64([to]), g.int64([0])]);
  const [score, on, rep, ahead] = [
    part(e, 0, K),
    part(e, K, 2 * K),
    part(e, 2 * K, 3 * K),
    part(e, 3 * K, 3 * K + LOOKAHEAD),
  ];
  const [last, prev] = [part(d, 0, K), part(d, V, V + K)];
  const one = g.float(1);
  const allowed = g.op("Mul", [rep, g.op("Sub", [one, prev])]);
  const sup = g.op("Mul", [g.op("Mul", [on, last]), g.op("Sub", [one, allowed])]);
  const tokens = g.op("Sub", [g.op("Mul", [score, g.float(2)]), g.op("Mul", [sup, g.float(20)])]);
  const pieces =
    scale === 1 ? [tokens, g.float([0.5])] : [g.op("Mul", [tokens, g.float(scale)]), g.float([0.5 * scale])];
  if (tdt) {
    const stay = g.op("Mul", [
      g.op("ReduceMax", [on], { keepdims: 1 }),
      g.op("Sub", [one, g.op("ReduceSum", [sup], { keepdims: 1 })]),
    ]);
    const jump = g.op("Sub", [one, stay]);
    pieces.push(g.op("Sub", [g.op("Mul", [stay, g.float(10)]), one]));
    pieces.push(
      g.op("Mul", [jump, g.op("Add", [g.op("Mul", [ahead, g.float([9, 8, 7, 6])]), g.float([0, 0, 0, 0.1])])]),
    );
  }
  const width = V + (tdt ? LOOKAHEAD + 1 : 0);
  g.output(g.op("Reshape", [g.op("Concat", pieces, { axis: 0 }), g.int64([1, 1, 1, width])]), "outputs", "float32", [
    1,
    1,
    1,
    width,
  ]);
  return g.toModel({ producerName: "sawt-test-tone-transducer" });
}

/** Writes a transducer pack (RNNT, or TDT with `tdt`) into `dir`. */
export async function writeToneTransducerPack(
  dir: string,
  options: { tdt?: boolean; joinerScale?: number } = {},
): Promise<void> {
  const tdt = options.tdt ?? false;
  await mkdir(dir, { recursive: true });
  const metadata = {
    vocab_size: K,
    subsampling_factor: TRANSDUCER_SUBSAMPLING,
    normalize_type: "",
    pred_rnn_layers: 1,
    pred_hidden: V,
    feat_dim: FEAT_DIM,
    model_type: "EncDecRNNTBPEModel",
    url: tdt
      ? "https://huggingface.co/nvidia/parakeet-tdt-tone"
      : "https://huggingface.co/nvidia/fastconformer-rnnt-tone",
  };
  await Bun.write(join(dir, "encoder.onnx"), buildToneEncoder(tdt, metadata));
  await Bun.write(join(dir, "decoder.onnx"), buildToneDecoder());
  await Bun.write(join(dir, "joiner.onnx"), buildToneJoiner(tdt, options.joinerScale));
  await Bun.write(
    join(dir, "tokens.txt"),
    transducerTokens()
      .map((t, i) => `${t} ${i}\n`)
      .join(""),
  );
}
