import { describe, expect, test } from "bun:test";
import {
  bytesToInt16,
  encodeWav,
  floatToInt16,
  int16ToFloat,
  parseWavHeader,
  peakNormalize,
  WAV_UNKNOWN_SIZE,
  wavHeader,
} from "./wav.ts";

describe("float/int16 conversion", () => {
  test("does clip out-of-range floats when converting to int16", () => {
    const out = floatToInt16(new Float32Array([0, 1, -1, 2, -2, 0.5, Number.POSITIVE_INFINITY, Number.NaN]));
    expect(Array.from(out)).toEqual([0, 32767, -32768, 32767, -32768, 16384, 32767, 0]);
  });

  test("does round-trip every int16 value exactly when converting through float", () => {
    const all = new Int16Array(65536);
    for (let i = 0; i < all.length; i++) all[i] = i - 32768;
    expect(floatToInt16(int16ToFloat(all))).toEqual(all);
  });

  test("does read little-endian bytes when the view is unaligned", () => {
    const bytes = new Uint8Array([0xff, 0x01, 0x00, 0xff, 0x7f]);
    expect(Array.from(bytesToInt16(bytes.subarray(1)))).toEqual([1, 32767]);
  });
});

describe("encodeWav / parseWavHeader", () => {
  test("does write a 44-byte PCM header that parses back when given float samples", () => {
    const bytes = encodeWav(new Float32Array([0, 0.5, -0.5]), 22050);
    expect(bytes.byteLength).toBe(44 + 6);
    const info = parseWavHeader(bytes);
    expect(info).toEqual({
      formatTag: 1,
      channels: 1,
      sampleRate: 22050,
      bitsPerSample: 16,
      blockAlign: 2,
      dataOffset: 44,
      dataBytes: 6,
      declaredDataBytes: 6,
      channelMask: 0,
      frames: 3,
    });
    expect(Array.from(bytesToInt16(bytes.subarray(44)))).toEqual([0, 16384, -16384]);
  });

  test("does write 0xFFFFFFFF sizes when the length is unknown", () => {
    const header = wavHeader(16000);
    const view = new DataView(header.buffer);
    expect(view.getUint32(4, true)).toBe(WAV_UNKNOWN_SIZE);
    expect(view.getUint32(40, true)).toBe(WAV_UNKNOWN_SIZE);
    const streamed = new Uint8Array(44 + 8);
    streamed.set(header);
    expect(parseWavHeader(streamed).frames).toBe(4);
  });

  test("does skip unknown chunks and resolve WAVE_FORMAT_EXTENSIBLE when parsing", () => {
    const parts: number[] = [];
    const u32 = (v: number): number[] => [v & 255, (v >> 8) & 255, (v >> 16) & 255, (v >>> 24) & 255];
    const u16 = (v: number): number[] => [v & 255, (v >> 8) & 255];
    const ascii = (s: string): number[] => Array.from(s, (c) => c.charCodeAt(0));
    parts.push(...ascii("RIFF"), ...u32(0), ...ascii("WAVE"));
    parts.push(...ascii("LIST"), ...u32(3), 1, 2, 3, 0); // odd size, padded
    parts.push(
      ...ascii("fmt "),
      ...u32(40),
      ...u16(0xfffe),
      ...u16(2),
      ...u32(48000),
      ...u32(48000 * 8),
      ...u16(8),
      ...u16(32),
    );
    parts.push(...u16(22), ...u16(32), ...u32(3), ...u16(3), ...new Array<number>(14).fill(0));
    parts.push(...ascii("data"), ...u32(16), ...new Array<number>(16).fill(0));
    const info = parseWavHeader(new Uint8Array(parts));
    expect(info.formatTag).toBe(3);
    expect(info.channels).toBe(2);
    expect(info.frames).toBe(2);
  });

  test("does throw when the bytes are not a WAV file", () => {
    expect(() => parseWavHeader(new Uint8Array(64))).toThrow("not a RIFF/WAVE file");
    expect(() => parseWavHeader(encodeWav(new Float32Array(4), 8000).subarray(0, 30))).toThrow();
  });
});

describe("peakNormalize", () => {
  test("does scale the peak to the target when the signal is quiet", () => {
    const out = peakNormalize(new Float32Array([0.1, -0.2, 0.05]), 0.8);
    expect(out[1]).toBeCloseTo(-0.8, 6);
    expect(out[0]).toBeCloseTo(0.4, 6);
  });

  test("does leave silence untouched and respect maxGain when the signal is tiny", () => {
    expect(Array.from(peakNormalize(new Float32Array(3)))).toEqual([0, 0, 0]);
    const out = peakNormalize(new Float32Array([0.001]), 0.9, 10);
    expect(out[0]).toBeCloseTo(0.01, 6);
  });
});
