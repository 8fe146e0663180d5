/**
 * A two-channel call of tone speech for the channel tests: the agent (left) greets, the customer
 * (right) answers, the agent speaks again; each channel is silent while the other speaks, so each
 * channel's transcript has its own text and the merged segments alternate in time.
 */
import { ffmpegSync } from "../support/audio.ts";
import { letterToneAudio } from "../support/models/ctc.ts";
import { concat, silence } from "./support.ts";

/** What each turn says, in time order, and who says it. */
export const TURNS = [
  { channel: 0, text: "سلام عليكم" },
  { channel: 1, text: "شكرا" },
  { channel: 0, text: "مرحبا" },
] as const;

/** The two channels at `rate`: each turn spoken on its channel, silence on the other, 1 s gaps. */
export function twoChannelCall(rate = 16000): [Float32Array, Float32Array] {
  const left: Float32Array[] = [silence(0.5, rate)];
  const right: Float32Array[] = [silence(0.5, rate)];
  for (const turn of TURNS) {
    const speech = letterToneAudio(turn.text, rate);
    (turn.channel === 0 ? left : right).push(speech);
    (turn.channel === 0 ? right : left).push(silence(speech.length / rate, rate));
    left.push(silence(1, rate));
    right.push(silence(1, rate));
  }
  return [concat(...left), concat(...right)];
}

/** Frames of `channels` interleaved (the channels have one length). */
export function interleave(channels: readonly Float32Array[]): Float32Array {
  const frames = channels[0]!.length;
  const out = new Float32Array(frames * channels.length);
  for (let i = 0; i < frames; i++)
    for (const [c, samples] of channels.entries()) out[i * channels.length + c] = samples[i]!;
  return out;
}

/** Interleaved 16-bit little-endian PCM of `channels`. */
export function interleavedPcm16(channels: readonly Float32Array[]): Uint8Array {
  const mixed = interleave(channels);
  const out = new Int16Array(mixed.length);
  for (let i = 0; i < mixed.length; i++) out[i] = Math.round(Math.max(-1, Math.min(1, mixed[i]!)) * 32767);
  return new Uint8Array(out.buffer);
}

/** Encodes `channels` at `rate` into `path` with the real ffmpeg (`args`: the output codec and format). */
export function encodeChannels(
  channels: readonly Float32Array[],
  rate: number,
  path: string,
  args: readonly string[],
): string {
  const mixed = interleave(channels);
  const pcm = new Uint8Array(mixed.buffer, mixed.byteOffset, mixed.byteLength);
  ffmpegSync(["-f", "f32le", "-ar", String(rate), "-ac", String(channels.length), "-i", "pipe:0", ...args, path], pcm);
  return path;
}
