/**
 * The HiFi-GAN generator VITS decodes with, over [1, C, frames] → tanh audio [1, 1, frames · hop]:
 * a kernel-7 input convolution, then per upsample stage a LeakyReLU, a transposed convolution
 * (stride = rate, channels halved) and the mean of one residual block per kernel size; a final
 * LeakyReLU, a kernel-7 convolution to one channel and tanh. ResBlock1 (Piper `high`) runs
 * dilated-then-plain convolution pairs, ResBlock2 (Piper `medium`) single dilated convolutions.
 */
import type { VitsLayers } from "./vits-layers.ts";

/** HiFi-GAN sizes, as Piper's training configs name them. */
export interface DecoderShape {
  readonly initialChannels: number;
  readonly resblock: "1" | "2";
  readonly resblockKernels: readonly number[];
  /** One list of dilations per kernel size. */
  readonly resblockDilations: readonly (readonly number[])[];
  readonly upsampleRates: readonly number[];
  readonly upsampleKernels: readonly number[];
}

/** HiFi-GAN's LeakyReLU slope between layers. */
const SLOPE = 0.1;

/** Appends the decoder to `latent` [1, inChannels, frames]; returns the audio [1, 1, samples]. */
export function decoder(layers: VitsLayers, shape: DecoderShape, inChannels: number, latent: string): string {
  const { g } = layers;
  let channels = shape.initialChannels;
  let x = layers.conv(latent, inChannels, channels, 7);
  shape.upsampleRates.forEach((rate, stage) => {
    const kernel = shape.upsampleKernels[stage]!;
    const out = channels / 2;
    // Each output sample of a stride-`rate` transposed convolution sums kernel/rate taps per channel.
    const weight = layers.weight([channels, out, kernel], (channels * kernel) / rate);
    const pad = (kernel - rate) / 2;
    x = g.op("ConvTranspose", [g.op("LeakyRelu", [x], { alpha: SLOPE }), weight, layers.bias(out)], {
      kernel_shape: [kernel],
      strides: [rate],
      pads: [pad, pad],
    });
    channels = out;
    const blocks = shape.resblockKernels.map((k, i) =>
      resblock(layers, shape.resblock, x, channels, k, shape.resblockDilations[i]!),
    );
    const sum = blocks.reduce((a, b) => g.op("Add", [a, b]));
    x = g.op("Mul", [sum, g.float(1 / blocks.length)]);
  });
  // PyTorch's default slope (0.01) before the last convolution, as HiFi-GAN has it.
  const post = layers.conv(g.op("LeakyRelu", [x], { alpha: 0.01 }), channels, 1, 7, { bias: false });
  return g.op("Tanh", [post]);
}

function resblock(
  layers: VitsLayers,
  kind: "1" | "2",
  input: string,
  channels: number,
  kernel: number,
  dilations: readonly number[],
): string {
  const { g } = layers;
  const act = (v: string) => g.op("LeakyRelu", [v], { alpha: SLOPE });
  let x = input;
  for (const dilation of dilations) {
    let y = layers.conv(act(x), channels, channels, kernel, { dilation });
    if (kind === "1") y = layers.conv(act(y), channels, channels, kernel);
    x = g.op("Add", [x, y]);
  }
  return x;
}
