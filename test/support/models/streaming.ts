/**
 * Constructed cache-aware streaming NeMo models in sherpa-onnx's online layouts (CTC:
 * model.onnx + tokens.txt; transducer: encoder.onnx with the RNNT decoder/joiner of
 * ./transducer.ts), reading the tone letters of {@link letterToneAudio} back. Their outputs
 * depend on every carried cache and on the chunk shift:
 *
 * - a window is 16 feature frames advancing by 12 (window_size 16, chunk_shift 12: 4 frames of
 *   pre-encode context); at one output frame per 4 feature frames it holds a context frame and
 *   three new ones. Each output frame is the vector of which token's tone sounds (s, as in
 *   ./transducer.ts).
 * - the model's outputs lag one chunk: what it emits are the three frames BEFORE the new ones,
 *   read from the caches. `cache_last_channel` [1, 1, 6, K] holds the six older frames,
 *   `cache_last_time` [1, 1, K, 1] the newest, `cache_last_channel_len` how many of the seven
 *   are real (history beyond it reads as silence). A decoder that drops any cache loses letters.
 * - the context frame must equal the newest cached frame (the previous window's last): windows
 *   that do not overlap by window_size − chunk_shift frames blank the chunk's new frames.
 * - CTC head: log-softmax of [2·s, blank 0.5]; transducer head: the RNNT encoder frames of
 *   ./transducer.ts ([on, on, rep, 0]), computed over the cached history.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { GraphBuilder } from "../onnx/builder.ts";
import { BLANK_TONES, LETTER_TONES, SPACE_TONE, tonePeak } from "./ctc.ts";
import { toneFrequency } from "./tone-voice.ts";
import { buildToneDecoder, buildToneJoiner, transducerTokens } from "./transducer.ts";

/** Streaming geometry of the constructed models (feature frames). */
export const STREAMING = { window: 16, shift: 12, subsampling: 4, history: 6 } as const;
const FEAT_DIM = 80;
const K = transducerTokens().length - 1;
const V = K + 1;
const NEW = STREAMING.shift / STREAMING.subsampling;
const SEQ = STREAMING.history + 1 + NEW;

function encoderCore(g: GraphBuilder) {
  const features = g.input("audio_signal", "float32", [1, FEAT_DIM, STREAMING.window]);
  g.input("length", "int64", [1]);
  const channel = g.input("cache_last_channel", "float32", [1, 1, STREAMING.history, K]);
  const time = g.input("cache_last_time", "float32", [1, 1, K, 1]);
  const length = g.input("cache_last_channel_len", "int64", [1]);
  const relative = (tones: readonly number[]) => {
    const bins = g.int64(tones.map((id) => tonePeak(toneFrequency(id)).bin));
    const levels = g.float(
      tones.map((id) => tonePeak(toneFrequency(id)).level),
      [1, tones.length, 1],
    );
    const energy = g.op("Sub", [g.op("Gather", [features, bins], { axis: 1 }), levels]);
    return g.op("Slice", [
      energy,
      g.int64([0]),
      g.int64([STREAMING.window]),
      g.int64([2]),
      g.int64([STREAMING.subsampling]),
    ]);
  };
  const kept = relative([SPACE_TONE, ...LETTER_TONES.map(([, id]) => id)]);
  const loudest = g.op("ReduceMax", [g.op("Concat", [kept, relative([...BLANK_TONES])], { axis: 1 })], {
    axes: [1],
    keepdims: 1,
  });
  const s = g.op(
    "Cast",
    [g.op("And", [g.op("Greater", [kept, g.float(-3)]), g.op("GreaterOrEqual", [kept, loudest])])],
    { to: 1 },
  );
  const slice = (x: string, from: number, to: number) =>
    g.op("Slice", [x, g.int64([from]), g.int64([to]), g.int64([2])]);
  const context = slice(s, 0, 1);
  const newest = g.op("Reshape", [time, g.int64([1, K, 1])]);
  const lengthF = g.op("Cast", [length], { to: 1 });
  // The context frame must repeat the previous window's last frame (once there is one).
  const mismatch = g.op(
    "Cast",
    [
      g.op("Greater", [
        g.op("ReduceSum", [g.op("Abs", [g.op("Sub", [context, newest])])], { keepdims: 0 }),
        g.float(0.5),
      ]),
    ],
    { to: 1 },
  );
  const started = g.op("Cast", [g.op("Greater", [lengthF, g.float(0)])], { to: 1 });
  const gate = g.op("Sub", [g.float(1), g.op("Mul", [mismatch, started])]);
  const fresh = g.op("Mul", [slice(s, 1, 1 + NEW), gate]);
  const older = g.op("Transpose", [g.op("Reshape", [channel, g.int64([1, STREAMING.history, K])])], {
    perm: [0, 2, 1],
  });
  const joined = g.op("Concat", [older, newest, fresh], { axis: 2 });
  // History slots before (history + 1 − len) are not real yet: they read as silence.
  const positions = g.float(
    Array.from({ length: SEQ }, (_, i) => i),
    [1, 1, SEQ],
  );
  const firstReal = g.op("Sub", [g.float(STREAMING.history + 1), lengthF]);
  const combined = g.op("Mul", [joined, g.op("Cast", [g.op("GreaterOrEqual", [positions, firstReal])], { to: 1 })]);
  const nextChannel = g.op("Reshape", [
    g.op("Transpose", [slice(combined, SEQ - 1 - STREAMING.history, SEQ - 1)], { perm: [0, 2, 1] }),
    g.int64([1, 1, STREAMING.history, K]),
  ]);
  const nextTime = g.op("Reshape", [slice(combined, SEQ - 1, SEQ), g.int64([1, 1, K, 1])]);
  const nextLength = g.op("Min", [g.op("Add", [length, g.int64([NEW])]), g.int64([STREAMING.history + 1])]);
  return {
    combined,
    slice,
    outputs: () => {
      g.output(g.int64([NEW]), "encoded_lengths", "int64", [1]);
      g.output(nextChannel, "cache_last_channel_next", "float32", [1, 1, STREAMING.history, K]);
      g.output(nextTime, "cache_last_time_next", "float32", [1, 1, K, 1]);
      g.output(nextLength, "cache_last_channel_next_len", "int64", [1]);
    },
  };
}

function metadata(extra: Record<string, string | number> = {}) {
  return {
    window_size: STREAMING.window,
    chunk_shift: STREAMING.shift,
    subsampling_factor: STREAMING.subsampling,
    vocab_size: K,
    normalize_type: "",
    feat_dim: FEAT_DIM,
    cache_last_channel_dim1: 1,
    cache_last_channel_dim2: STREAMING.history,
    cache_last_channel_dim3: K,
    cache_last_time_dim1: 1,
    cache_last_time_dim2: K,
    cache_last_time_dim3: 1,
    ...extra,
  };
}

/** The streaming CTC model: output frames lag one chunk, read from the caches. */
export function buildStreamingToneCtc(): Uint8Array {
  const g = new GraphBuilder("tone_streaming_ctc");
  const { combined, slice, outputs } = encoderCore(g);
  const lagged = slice(combined, STREAMING.history + 1 - NEW, STREAMING.history + 1);
  const scores = g.op("Transpose", [g.op("Mul", [lagged, g.float(2)])], { perm: [0, 2, 1] });
  const blank = g.op("Expand", [g.float([0.5], [1, 1, 1]), g.int64([1, NEW, 1])]);
  g.output(g.op("LogSoftmax", [g.op("Concat", [scores, blank], { axis: 2 })], { axis: -1 }), "logprobs", "float32", [
    1,
    NEW,
    V,
  ]);
  outputs();
  return g.toModel({
    producerName: "sawt-test-tone-streaming",
    metadata: metadata({ model_type: "EncDecCTCModelBPE" }),
  });
}

/** The streaming transducer encoder: RNNT frames ([on, on, rep, 0]) over the cached history. */
export function buildStreamingToneEncoder(): Uint8Array {
  const g = new GraphBuilder("tone_streaming_encoder");
  const { combined, slice, outputs } = encoderCore(g);
  const first = STREAMING.history + 1 - NEW;
  const at = (lag: number) => slice(combined, first - lag, first - lag + NEW);
  const on = g.op("Mul", [at(0), g.op("Sub", [g.float(1), at(1)])]);
  const rep = g.op("Mul", [on, g.op("Max", [at(2), at(3), at(4)])]);
  const frames = g.op("Concat", [on, on, rep, g.float(new Array(4 * NEW).fill(0), [1, 4, NEW])], { axis: 1 });
  g.output(frames, "outputs", "float32", [1, 3 * K + 4, NEW]);
  outputs();
  const extra = { pred_rnn_layers: 1, pred_hidden: V, model_type: "EncDecHybridRNNTCTCBPEModel" };
  return g.toModel({ producerName: "sawt-test-tone-streaming", metadata: metadata(extra) });
}

/** Writes the streaming CTC pack (`model.onnx` + `tokens.txt`) into `dir`. */
export async function writeStreamingCtcPack(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await Bun.write(join(dir, "model.onnx"), buildStreamingToneCtc());
  await Bun.write(
    join(dir, "tokens.txt"),
    transducerTokens()
      .map((t, i) => `${t} ${i}\n`)
      .join(""),
  );
}

/** Writes the streaming transducer pack (encoder/decoder/joiner + tokens.txt) into `dir`. */
export async function writeStreamingTransducerPack(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await Bun.write(join(dir, "encoder.onnx"), buildStreamingToneEncoder());
  await Bun.write(join(dir, "decoder.onnx"), buildToneDecoder());
  await Bun.write(join(dir, "joiner.onnx"), buildToneJoiner(false));
  await Bun.write(
    join(dir, "tokens.txt"),
    transducerTokens()
      .map((t, i) => `${t} ${i}\n`)
      .join(""),
  );
}
