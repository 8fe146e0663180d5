/**
 * Layers of the constructed VITS voice (piper-medium.ts) over a GraphBuilder: convolutions,
 * linear maps and LayerNorm whose weights come from a seeded PRNG, scaled by 1/√fan-in so
 * activations keep their size through dozens of layers and nothing overflows.
 */
import { seededRandom } from "../../../src/asr/whisper/fallback.ts";
import { GraphBuilder, tensor } from "../onnx/builder.ts";

/** Weights, layers and shapes of one graph under construction. */
export class VitsLayers {
  private readonly random: () => number;
  /** Weights drawn so far (the model's parameter count once built). */
  parameters = 0;

  constructor(
    readonly g: GraphBuilder,
    seed: number,
  ) {
    this.random = seededRandom(seed);
  }

  /** A weight of `dims` with standard deviation gain/√fanIn (uniform), so activations keep their scale. */
  weight(dims: readonly number[], fanIn: number, gain = 1): string {
    const count = dims.reduce((a, b) => a * b, 1);
    const limit = gain * Math.sqrt(3 / fanIn);
    const values = new Float32Array(count);
    this.parameters += count;
    for (let i = 0; i < count; i++) values[i] = (2 * this.random() - 1) * limit;
    return this.g.constant(tensor(values, dims));
  }

  /** A small bias of `size`. */
  bias(size: number): string {
    return this.weight([size], 100);
  }

  /** Conv1d over [1, C, T] with `same` padding. */
  conv(x: string, inCh: number, outCh: number, kernel: number, options: ConvOptions = {}): string {
    const dilation = options.dilation ?? 1;
    const pad = (dilation * (kernel - 1)) / 2;
    const inputs = [x, this.weight([outCh, inCh, kernel], inCh * kernel, options.gain)];
    if (options.bias !== false) inputs.push(this.bias(outCh));
    return this.g.op("Conv", inputs, { kernel_shape: [kernel], dilations: [dilation], pads: [pad, pad] });
  }

  /** Matrix product with bias over [1, T, C]. */
  linear(x: string, inCh: number, outCh: number): string {
    return this.g.op("Add", [this.g.op("MatMul", [x, this.weight([inCh, outCh], inCh)]), this.bias(outCh)]);
  }

  /** LayerNorm over the last axis (unit scale, zero shift, as freshly initialised). */
  layerNorm(x: string, channels: number): string {
    const scale = this.g.constant(tensor(new Float32Array(channels).fill(1), [channels]));
    const shift = this.g.constant(tensor(new Float32Array(channels), [channels]));
    return this.g.op("LayerNormalization", [x, scale, shift], { axis: -1, epsilon: 1e-5 });
  }

  /** Splits `x` along the channel axis (1) into parts of `sizes`. */
  split(x: string, sizes: readonly number[]): string[] {
    return this.g.opN("Split", [x, this.g.int64(sizes)], sizes.length, { axis: 1 });
  }
}

/** Options of {@link VitsLayers.conv}. */
export interface ConvOptions {
  readonly dilation?: number;
  readonly gain?: number;
  readonly bias?: boolean;
}
