import { describe, expect, test } from "bun:test";
import { LiveChannelsInput } from "./live-channels.ts";
import { LiveAudioInput } from "./live-input.ts";

/** Interleaved s16le frames of two ramps (left rising, right falling). */
function stereoBytes(frames: number): Uint8Array {
  const samples = new Int16Array(frames * 2);
  for (let i = 0; i < frames; i++) {
    samples[2 * i] = (i * 37) % 30000;
    samples[2 * i + 1] = -((i * 53) % 30000);
  }
  return new Uint8Array(samples.buffer);
}

/** One channel of `bytes` as mono s16le. */
function channelOf(bytes: Uint8Array, channel: number): Uint8Array {
  const stereo = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
  return new Uint8Array(stereo.filter((_, i) => i % 2 === channel).buffer);
}

const joined = (parts: Float32Array[]) => Float32Array.from(parts.flatMap((p) => [...p]));

describe("LiveChannelsInput", () => {
  test("does hear mixed channels as one stream, the mean of what each channel gives alone", () => {
    const bytes = stereoBytes(8000);
    const format = { encoding: "pcm_s16le", sampleRate: 8000 } as const;
    const input = new LiveChannelsInput({ ...format, channels: 2, mix: true });
    expect([input.channels, input.outputs]).toEqual([2, 1]);
    const got: Float32Array[] = [];
    for (let at = 0; at < bytes.length; at += 999) {
      const out = input.push(bytes.subarray(at, at + 999));
      expect(out.length).toBe(1);
      got.push(out[0]!);
    }
    got.push(input.flush()[0]!);
    const alone = [0, 1].map((channel) => {
      const mono = new LiveAudioInput(format);
      return joined([mono.push(channelOf(bytes, channel)), mono.flush()]);
    });
    const mixed = joined(got);
    expect(mixed.length).toBe(alone[0]!.length);
    for (let i = 0; i < mixed.length; i += 97) expect(mixed[i]!).toBeCloseTo((alone[0]![i]! + alone[1]![i]!) / 2, 6);
    const fresh = new LiveChannelsInput({ ...format, channels: 2, mix: true });
    expect(fresh.silence(100).map((c) => c.every((v) => v === 0))).toEqual([true]);
  });

  test("does give each channel what a mono input gives for that channel alone, whatever the chunking", () => {
    const bytes = stereoBytes(8000);
    const format = { encoding: "pcm_s16le", sampleRate: 8000 } as const;
    const input = new LiveChannelsInput({ ...format, channels: 2 });
    const got: Float32Array[][] = [[], []];
    // Chunks that cut frames and samples in odd places (1, 3, 7 bytes over a frame).
    for (let at = 0, size = 1; at < bytes.length; at += size, size = (size * 3 + 1) % 997 || 5)
      for (const [c, samples] of input.push(bytes.subarray(at, at + size)).entries()) got[c]!.push(samples);
    for (const [c, tail] of input.flush().entries()) got[c]!.push(tail);
    for (const channel of [0, 1]) {
      const mono = new LiveAudioInput(format);
      const expected = joined([mono.push(channelOf(bytes, channel)), mono.flush()]);
      expect(joined(got[channel]!)).toEqual(expected);
    }
    expect(input.secondsIn).toBeCloseTo(1, 6);
  });

  test("does refuse a channel count that is not a whole number from 1", () => {
    for (const channels of [0, 1.5, 65])
      expect(() => new LiveChannelsInput({ encoding: "pcm_mulaw", sampleRate: 8000, channels })).toThrow(RangeError);
  });
});
