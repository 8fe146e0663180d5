import { describe, expect, test } from "bun:test";
import { CONTENT_TYPES, ffmpegEncodeArgs, isAudioFormat, patchFlacTotalSamples, planEncoding } from "./formats.ts";

describe("planEncoding", () => {
  test("does map every format to its D8 content type", () => {
    expect(CONTENT_TYPES).toEqual({
      mp3: "audio/mpeg",
      wav: "audio/wav",
      opus: "audio/ogg",
      flac: "audio/flac",
      aac: "audio/aac",
      pcm: "audio/pcm",
    });
  });

  test("does feed opus its nearest allowed rate but report 48 kHz when resampling for telephony", () => {
    expect(planEncoding("opus", 22050, 8000)).toMatchObject({ encoderRate: 8000, sampleRate: 48000 });
    expect(planEncoding("opus", 22050)).toMatchObject({ encoderRate: 24000, sampleRate: 48000 });
    expect(planEncoding("opus", 44100)).toMatchObject({ encoderRate: 48000, sampleRate: 48000 });
  });

  test("does reject unknown formats and bad rates when called with them", () => {
    expect(isAudioFormat("ogg")).toBe(false);
    expect(() => planEncoding("ogg" as never, 22050)).toThrow(RangeError);
    expect(() => planEncoding("wav", 0)).toThrow(RangeError);
    expect(() => planEncoding("wav", 22050, 16000.5)).toThrow(RangeError);
  });

  test("does only put integers and fixed words into ffmpeg arguments", () => {
    const args = ffmpegEncodeArgs(planEncoding("opus", 22050, 16000), "encoded", true);
    // Streaming adds the no-probe input options (first bytes must not wait for seconds of input).
    expect(args.slice(0, 12)).toEqual([
      "-f",
      "s16le",
      "-ar",
      "22050",
      "-ac",
      "1",
      "-probesize",
      "32",
      "-analyzeduration",
      "0",
      "-i",
      "pipe:0",
    ]);
    expect(args.at(-1)).toBe("pipe:1");
    expect(args).toContain("libopus");
    expect(args).toContain("-page_duration");
  });
});

describe("patchFlacTotalSamples", () => {
  test("does write a 36-bit total into STREAMINFO when the stream starts with fLaC", () => {
    const bytes = new Uint8Array(42);
    bytes.set([0x66, 0x4c, 0x61, 0x43, 0x80, 0, 0, 34]);
    bytes[21] = 0xa0; // bits-per-sample bits above the total must survive
    expect(patchFlacTotalSamples(bytes, 2 ** 32 + 5)).toBe(true);
    expect(bytes[21]).toBe(0xa1);
    expect(Array.from(bytes.subarray(22, 26))).toEqual([0, 0, 0, 5]);
  });

  test("does leave the bytes alone when they are not FLAC", () => {
    const bytes = new Uint8Array(42);
    expect(patchFlacTotalSamples(bytes, 10)).toBe(false);
    expect(bytes.every((b) => b === 0)).toBe(true);
  });
});
