/**
 * Interleaved multi-channel live audio (a stereo call recording: agent left, customer right)
 * split into one 16 kHz float stream per channel. Frames are de-interleaved on the encoded bytes
 * (a frame cut by a chunk boundary is carried over), then each channel is decoded and resampled by
 * its own ./live-input.ts `LiveAudioInput`, exactly as a mono stream is. One channel passes
 * straight through.
 */
import { encodeG711 } from "./g711.ts";
import { LiveAudioInput, type LiveAudioFormat } from "./live-input.ts";

/** Most interleaved channels a stream may declare here (doors set their own, lower, limit). */
const MAX_INTERLEAVED = 64;

/** A live stream's format with its interleaved channel count (1 when absent). */
export interface LiveChannelsFormat extends LiveAudioFormat {
  readonly channels?: number;
  /**
   * The interleaved channels heard as one stream, their mean (a door whose protocol transcribes a
   * multi-channel stream as one unless asked otherwise: Deepgram without `multichannel`).
   */
  readonly mix?: boolean;
}

/** See the file comment. */
export class LiveChannelsInput {
  private readonly inputs: LiveAudioInput[];
  private readonly sampleBytes: number;
  private carry = new Uint8Array(0);
  private bytesIn = 0;
  private readonly mixed: boolean;

  constructor(readonly format: LiveChannelsFormat) {
    const channels = format.channels ?? 1;
    if (!Number.isInteger(channels) || channels < 1 || channels > MAX_INTERLEAVED)
      throw new RangeError(`channels must be a whole number from 1 to ${MAX_INTERLEAVED}`);
    const mono = { encoding: format.encoding, sampleRate: format.sampleRate };
    this.inputs = Array.from({ length: channels }, () => new LiveAudioInput(mono));
    this.sampleBytes = format.encoding === "pcm_s16le" ? 2 : 1;
    this.mixed = format.mix === true && channels > 1;
  }

  /** Interleaved channels. */
  get channels(): number {
    return this.inputs.length;
  }

  /** Streams out: one per channel, or one when the channels are mixed. */
  get outputs(): number {
    return this.mixed ? 1 : this.inputs.length;
  }

  /** Bytes per second of the interleaved stream (for buffering limits). */
  get bytesPerSecond(): number {
    return this.inputs[0]!.bytesPerSecond * this.inputs.length;
  }

  /** Seconds of audio received so far. */
  get secondsIn(): number {
    return this.bytesIn / this.bytesPerSecond;
  }

  /** Each channel's 16 kHz samples the next bytes complete, in channel order (or their mix). */
  push(bytes: Uint8Array): Float32Array[] {
    this.bytesIn += bytes.length;
    if (this.inputs.length === 1) return [this.inputs[0]!.push(bytes)];
    const joined = new Uint8Array(this.carry.length + bytes.length);
    joined.set(this.carry);
    joined.set(bytes, this.carry.length);
    const frame = this.sampleBytes * this.inputs.length;
    const whole = joined.length - (joined.length % frame);
    this.carry = joined.slice(whole);
    const frames = joined.subarray(0, whole);
    return this.out(
      this.inputs.map((input, channel) =>
        input.push(channelBytes(frames, this.inputs.length, channel, this.sampleBytes)),
      ),
    );
  }

  /**
   * `ms` of silence on every channel, decoded exactly as received audio is (the live core's wall
   * clock: a caller that stopped sending is silent, src/asr/live/silence-clock.ts). It counts as
   * audio received.
   */
  silence(ms: number): Float32Array[] {
    const samples = Math.round((this.format.sampleRate * ms) / 1000) * this.inputs.length;
    const { encoding } = this.format;
    const bytes =
      encoding === "pcm_s16le" ? new Uint8Array(samples * 2) : encodeG711(new Int16Array(samples), encoding);
    return this.push(bytes);
  }

  /** Ends the stream: what each channel's resampler still owes. */
  flush(): Float32Array[] {
    return this.out(this.inputs.map((input) => input.flush()));
  }

  /** The channels as they go out: apart, or their mean (every channel is resampled alike, so they align). */
  private out(channels: Float32Array[]): Float32Array[] {
    if (!this.mixed) return channels;
    const length = Math.min(...channels.map((c) => c.length));
    const mix = new Float32Array(length);
    for (const channel of channels) for (let i = 0; i < length; i++) mix[i]! += channel[i]! / channels.length;
    return [mix];
  }
}

/**
 * One channel's encoded samples from whole interleaved frames of `channels` channels, each sample
 * `sampleBytes` wide (2 for s16le, 1 for G.711); a trailing partial frame is ignored.
 */
export function channelBytes(frames: Uint8Array, channels: number, channel: number, sampleBytes: number): Uint8Array {
  const stride = sampleBytes * channels;
  const count = Math.floor(frames.length / stride);
  const out = new Uint8Array(count * sampleBytes);
  for (let from = channel * sampleBytes, to = 0; to < out.length; from += stride, to += sampleBytes)
    for (let b = 0; b < sampleBytes; b++) out[to + b] = frames[from + b]!;
  return out;
}
