/**
 * A constructed Piper-contract VITS voice of realistic cost: the layers of a Piper "medium" voice
 * (VITS as Piper trains it) with seeded random weights, so benchmarks measure Sawt, onnxruntime
 * and sherpa-onnx on neural work of the size a real voice does, without downloading one.
 *
 * Shape (Piper's `medium` defaults, {@link PIPER_MEDIUM}): phoneme embedding 130 × 192; text
 * encoder of 6 layers at hidden 192 (2-head self-attention, LayerNorm, FFN 768 with kernel-3
 * convolutions); a projection to mean and log-scale (192 each); a fixed-ratio duration expansion
 * (every id lasts `max(1, round(framesPerId · length_scale))` frames, where Piper's trained
 * duration predictor would decide); VITS's sampling `z = m + ε · exp(logs) · noise_scale`; the
 * reversed 4-coupling flow (each coupling a WaveNet of 4 gated layers, kernel 5, hidden 192, with
 * a channel flip between couplings); a HiFi-GAN decoder (medium: 256 initial channels, upsample
 * 8·8·4 with kernels 16·16·8, ResBlock2 kernels 3·5·7 dilations (1,2)·(2,6)·(3,12)) ending in
 * tanh. Output `output` [1, 1, frames · 256]. Relative-position attention, masks and the speaker
 * embedding are left out: their cost is small beside the decoder's. About 60 MB.
 *
 * Graph contract as tone-voice.ts (Piper's export): `input` int64 [1, N], `input_lengths` int64
 * [1], `scales` float32 [3], and `sid` int64 [1] when `multiSpeaker` (accepted, not used).
 */
import { GraphBuilder } from "../onnx/builder.ts";
import { type PiperPack, type SherpaVitsPack, writePiperPack, writeSherpaVitsPack } from "./tone-voice.ts";
import { decoder, type DecoderShape } from "./vits-decoder.ts";
import { VitsLayers } from "./vits-layers.ts";

/** Layer sizes of a constructed VITS voice. */
export interface VitsShape {
  readonly vocab: number;
  readonly hidden: number;
  readonly filter: number;
  readonly heads: number;
  readonly encoderLayers: number;
  readonly couplings: number;
  readonly wavenetLayers: number;
  readonly wavenetKernel: number;
  readonly decoder: DecoderShape;
  /** Frames each id lasts at length_scale 1 (the fixed duration ratio). */
  readonly framesPerId: number;
  /** Samples per frame: the product of the decoder's upsample rates. */
  readonly hopLength: number;
}

/** Piper's `medium` quality (piper_train defaults), the size most published voices have. */
export const PIPER_MEDIUM: VitsShape = {
  vocab: 130,
  hidden: 192,
  filter: 768,
  heads: 2,
  encoderLayers: 6,
  couplings: 4,
  wavenetLayers: 4,
  wavenetKernel: 5,
  decoder: {
    initialChannels: 256,
    resblock: "2",
    resblockKernels: [3, 5, 7],
    resblockDilations: [
      [1, 2],
      [2, 6],
      [3, 12],
    ],
    upsampleRates: [8, 8, 4],
    upsampleKernels: [16, 16, 8],
  },
  framesPerId: 3,
  hopLength: 256,
};

/** Piper's `high` quality: the medium encoder and flow with HiFi-GAN V1's larger decoder (about 110 MB). */
export const PIPER_HIGH: VitsShape = {
  ...PIPER_MEDIUM,
  decoder: {
    initialChannels: 512,
    resblock: "1",
    resblockKernels: [3, 7, 11],
    resblockDilations: [
      [1, 3, 5],
      [1, 3, 5],
      [1, 3, 5],
    ],
    upsampleRates: [8, 8, 2, 2],
    upsampleKernels: [16, 16, 4, 4],
  },
};

/** Options of {@link buildPiperMediumGraph}. */
export interface PiperMediumOptions {
  /** Default {@link PIPER_MEDIUM}. */
  readonly shape?: VitsShape;
  /** PRNG seed of the weights; default 19. */
  readonly seed?: number;
  /** Adds the `sid` input (accepted, not used). */
  readonly multiSpeaker?: boolean;
}

/**
 * Frames the graph makes per id for `lengthScale` (ONNX Round is round-half-even on the float32
 * product), at least one.
 */
export function framesPerId(lengthScale: number, shape: VitsShape = PIPER_MEDIUM): number {
  const x = Math.fround(Math.fround(lengthScale) * shape.framesPerId);
  const floor = Math.floor(x);
  const diff = x - floor;
  const rounded = diff > 0.5 || (diff === 0.5 && floor % 2 === 1) ? floor + 1 : floor;
  return Math.max(1, rounded);
}

/** Audio samples the voice returns for `idCount` ids at `lengthScale`. */
export function expectedSamples(idCount: number, lengthScale: number, shape: VitsShape = PIPER_MEDIUM): number {
  return idCount * framesPerId(lengthScale, shape) * shape.hopLength;
}

/** A built voice graph and its parameter count. */
export interface PiperMediumGraph {
  /** Call `toModel` once per metadata variant (the weights are shared). */
  readonly graph: GraphBuilder;
  readonly parameters: number;
}

/** Builds the voice's graph (about half a second for the medium shape). */
export function buildPiperMediumGraph(options: PiperMediumOptions = {}): PiperMediumGraph {
  const shape = options.shape ?? PIPER_MEDIUM;
  const g = new GraphBuilder("piper_medium_vits");
  const layers = new VitsLayers(g, options.seed ?? 19);
  const input = g.input("input", "int64", ["batch_size", "phonemes"]);
  const inputLengths = g.input("input_lengths", "int64", ["batch_size"]);
  const scales = g.input("scales", "float32", [3]);
  if (options.multiSpeaker) g.input("sid", "int64", [1]);

  // Trusting input_lengths as Piper does: the ids read are input[0, :input_lengths[0]].
  const ids = g.op("Slice", [input, g.int64([0]), inputLengths, g.int64([1])]);
  const stats = textEncoder(layers, shape, ids); // [1, 2·hidden, N]
  const expanded = expandDurations(layers, shape, stats, scales); // [1, 2·hidden, frames]
  const [mean, logScale] = layers.split(expanded, [shape.hidden, shape.hidden]) as [string, string];
  const noiseScale = g.op("Gather", [scales, g.int64(0)], { axis: 0 });
  const epsilon = g.op("RandomNormalLike", [mean], { dtype: 1 });
  const z = g.op("Add", [mean, g.op("Mul", [g.op("Mul", [epsilon, g.op("Exp", [logScale])]), noiseScale])]);
  const latent = reverseFlow(layers, shape, z);
  const audio = decoder(layers, shape.decoder, shape.hidden, latent);
  g.output(audio, "output", "float32", ["batch_size", 1, "time"]);
  return { graph: g, parameters: layers.parameters };
}

/** Options of {@link writePiperMediumPacks}. */
export interface PiperMediumPacksOptions extends Omit<PiperMediumOptions, "multiSpeaker"> {
  /** Symbol → id(s) besides Piper's specials (e.g. espeak's Arabic IPA); ids must be < shape.vocab. */
  readonly phonemeIdMap: Readonly<Record<string, number | readonly number[]>>;
  /** Default 22050 (Piper medium's rate). */
  readonly sampleRate?: number;
  /** Default `ar`. */
  readonly espeakVoice?: string;
}

/** Where {@link writePiperMediumPacks} writes each pack (each a voice folder of a models dir). */
export interface PiperMediumDirs {
  readonly piper: string;
  readonly sherpa: string;
}

/** The two packs of one voice, the parameter count and the model file's size. */
export interface PiperMediumPacks {
  /** `ar_JO-bench-medium.onnx(.json)`: a Piper pack as Piper publishes voices. */
  readonly piper: PiperPack;
  /** `model.onnx` + `tokens.txt`: the same weights with sherpa-onnx's VITS metadata. */
  readonly sherpa: SherpaVitsPack;
  readonly parameters: number;
  readonly modelBytes: number;
}

/**
 * Builds the voice once and writes it as a Piper pack (espeak phonemes, `espeak.voice`) and as
 * a sherpa-onnx VITS pack, so Sawt and sherpa-onnx-node load the same weights.
 */
export async function writePiperMediumPacks(
  dirs: PiperMediumDirs,
  options: PiperMediumPacksOptions,
): Promise<PiperMediumPacks> {
  const shape = options.shape ?? PIPER_MEDIUM;
  const tooLarge = Object.values(options.phonemeIdMap)
    .flat()
    .find((id) => id >= shape.vocab);
  if (tooLarge !== undefined) throw new Error(`id ${tooLarge} is outside the embedding (${shape.vocab} symbols)`);
  const { graph, parameters } = buildPiperMediumGraph(options);
  const sampleRate = options.sampleRate ?? 22050;
  const espeakVoice = options.espeakVoice ?? "ar";
  const producer = { producerName: "sawt-test-piper-medium" };
  let modelBytes = 0;
  const piper = await writePiperPack(dirs.piper, {
    name: "ar_JO-bench-medium",
    sampleRate,
    phonemeIdMap: options.phonemeIdMap,
    espeakVoice,
    numSymbols: shape.vocab,
    model: () => {
      const bytes = graph.toModel(producer);
      modelBytes = bytes.length;
      return bytes;
    },
  });
  const sherpa = await writeSherpaVitsPack(dirs.sherpa, {
    sampleRate,
    phonemeIdMap: options.phonemeIdMap,
    espeakVoice,
    model: (metadata) => graph.toModel({ ...producer, metadata }),
  });
  return { piper, sherpa, parameters, modelBytes };
}

/** Embedding and transformer encoder over [1, N, hidden]; returns mean and log-scale as [1, 2·hidden, N]. */
function textEncoder(layers: VitsLayers, shape: VitsShape, ids: string): string {
  const { g } = layers;
  const { hidden, heads, filter } = shape;
  const headSize = hidden / heads;
  let x = g.op("Gather", [layers.weight([shape.vocab, hidden], 1), ids], { axis: 0 });
  for (let layer = 0; layer < shape.encoderLayers; layer++) {
    const toHeads = (v: string, perm: number[]) =>
      g.op("Transpose", [g.op("Reshape", [v, g.int64([0, 0, heads, headSize])])], { perm });
    const q = toHeads(layers.linear(x, hidden, hidden), [0, 2, 1, 3]); // [1, h, N, d]
    const k = toHeads(layers.linear(x, hidden, hidden), [0, 2, 3, 1]); // [1, h, d, N]
    const v = toHeads(layers.linear(x, hidden, hidden), [0, 2, 1, 3]);
    const scores = g.op("Mul", [g.op("MatMul", [q, k]), g.float(1 / Math.sqrt(headSize))]);
    const attended = g.op("MatMul", [g.op("Softmax", [scores], { axis: -1 }), v]);
    const merged = g.op("Reshape", [g.op("Transpose", [attended], { perm: [0, 2, 1, 3] }), g.int64([0, 0, hidden])]);
    x = layers.layerNorm(g.op("Add", [x, layers.linear(merged, hidden, hidden)]), hidden);
    // The feed-forward block is two kernel-3 convolutions over time, as in VITS.
    const channelsFirst = g.op("Transpose", [x], { perm: [0, 2, 1] });
    const inner = g.op("Relu", [layers.conv(channelsFirst, hidden, filter, 3)]);
    const ffn = g.op("Transpose", [layers.conv(inner, filter, hidden, 3)], { perm: [0, 2, 1] });
    x = layers.layerNorm(g.op("Add", [x, ffn]), hidden);
  }
  // Mean and log-scale come out small (gain 0.3), as a trained prior's are.
  return layers.conv(g.op("Transpose", [x], { perm: [0, 2, 1] }), hidden, 2 * hidden, 1, { gain: 0.3 });
}

/** Repeats each id's column `max(1, round(framesPerId · length_scale))` times: [1, C, N] → [1, C, N·f]. */
function expandDurations(layers: VitsLayers, shape: VitsShape, stats: string, scales: string): string {
  const { g } = layers;
  const lengthScale = g.op("Gather", [scales, g.int64(1)], { axis: 0 });
  const rounded = g.op("Round", [g.op("Mul", [lengthScale, g.float(shape.framesPerId)])]);
  const frames = g.op("Max", [g.op("Cast", [rounded], { to: 7 }), g.int64(1)]);
  const target = g.op("Concat", [g.int64([1, 1, 1]), g.op("Reshape", [frames, g.int64([1])])], { axis: 0 });
  const repeated = g.op("Expand", [g.op("Unsqueeze", [stats, g.int64([3])]), target]);
  return g.op("Reshape", [repeated, g.int64([0, 0, -1])]);
}

/** The flow run backwards (inference direction): per coupling a channel flip, then x1 -= WaveNet(x0). */
function reverseFlow(layers: VitsLayers, shape: VitsShape, z: string): string {
  const { g } = layers;
  const { hidden } = shape;
  const half = hidden / 2;
  const flipIndex = g.int64(Array.from({ length: hidden }, (_, i) => hidden - 1 - i));
  let x = z;
  for (let coupling = 0; coupling < shape.couplings; coupling++) {
    x = g.op("Gather", [x, flipIndex], { axis: 1 });
    const [x0, x1] = layers.split(x, [half, half]) as [string, string];
    const h = layers.conv(x0, half, hidden, 1);
    // VITS zero-initialises this projection; a small gain keeps the random couplings near identity.
    const shift = layers.conv(wavenet(layers, shape, h), hidden, half, 1, { gain: 0.2 });
    x = g.op("Concat", [x0, g.op("Sub", [x1, shift])], { axis: 1 });
  }
  return x;
}

/** VITS's WN: gated (tanh · sigmoid) convolutions with residual and skip 1×1 projections. */
function wavenet(layers: VitsLayers, shape: VitsShape, input: string): string {
  const { g } = layers;
  const { hidden, wavenetLayers, wavenetKernel } = shape;
  let h = input;
  let skip: string | undefined;
  for (let i = 0; i < wavenetLayers; i++) {
    const [a, b] = layers.split(layers.conv(h, hidden, 2 * hidden, wavenetKernel), [hidden, hidden]) as [
      string,
      string,
    ];
    const acts = g.op("Mul", [g.op("Tanh", [a]), g.op("Sigmoid", [b])]);
    const last = i === wavenetLayers - 1;
    const out = layers.conv(acts, hidden, last ? hidden : 2 * hidden, 1);
    let skipPart = out;
    if (!last) {
      const [residual, s] = layers.split(out, [hidden, hidden]) as [string, string];
      h = g.op("Add", [h, residual]);
      skipPart = s;
    }
    skip = skip ? g.op("Add", [skip, skipPart]) : skipPart;
  }
  return skip!;
}
