import { describe, expect, test } from "bun:test";
import { ffmpegSync, tone } from "../../../test/support/audio.ts";
import { floatToInt16 } from "../wav.ts";
import { createFlacEncoder, flacStatus } from "./flac.ts";
import { createMp3Encoder, lameStatus } from "./lame.ts";
import { createOggOpusEncoder, opusStatus } from "./opus.ts";

const decodedSamples = (bytes: Uint8Array, rate: number): number =>
  ffmpegSync(["-i", "pipe:0", "-f", "s16le", "-ar", String(rate), "-ac", "1", "pipe:1"], bytes).byteLength / 2;

describe("in-process codecs", () => {
  test("does find libmp3lame, libopus and libFLAC when Debian's packages are installed", () => {
    expect(lameStatus()).toMatchObject({ ok: true });
    expect(flacStatus()).toMatchObject({ ok: true, version: expect.stringMatching(/^libFLAC \d/) });
    expect(opusStatus()).toMatchObject({ ok: true });
  });

  test("does trim Ogg Opus to the exact input length when the input is not whole frames", () => {
    const samples = floatToInt16(tone(440, 1.2345, 16000));
    const encoder = createOggOpusEncoder(16000, 24);
    try {
      const parts = [
        encoder.encode(samples.subarray(0, 7001)),
        encoder.encode(samples.subarray(7001)),
        encoder.finish(),
      ];
      const bytes = Buffer.concat(parts);
      expect(decodedSamples(bytes, 48000)).toBe(samples.length * 3);
    } finally {
      encoder.close();
      encoder.close();
    }
  });

  test("does give the same mp3 bytes when the samples arrive in other chunks", () => {
    const samples = floatToInt16(tone(300, 2, 22050));
    const whole = createMp3Encoder(22050, 64);
    const split = createMp3Encoder(22050, 64);
    try {
      const a = Buffer.concat([whole.encode(samples), whole.finish()]);
      const b = Buffer.concat([
        split.encode(samples.subarray(0, 999)),
        split.encode(samples.subarray(999)),
        split.finish(),
      ]);
      expect(a.equals(b)).toBe(true);
      expect(Math.abs(decodedSamples(a, 22050) - samples.length)).toBeLessThan(3000);
    } finally {
      whole.close();
      split.close();
    }
  });

  test("does decode FLAC losslessly with the announced length when the total is given", () => {
    const samples = floatToInt16(tone(500, 1.5, 11025));
    const encoder = createFlacEncoder(11025, samples.length);
    try {
      const bytes = Buffer.concat([
        encoder.encode(samples.subarray(0, 5000)),
        encoder.encode(samples.subarray(5000)),
        encoder.finish(),
      ]);
      const decoded = new Int16Array(ffmpegSync(["-i", "pipe:0", "-f", "s16le", "pipe:1"], bytes).buffer.slice(0));
      expect(decoded).toEqual(samples);
      // STREAMINFO total samples: the low nibble of byte 21 and bytes 22-25.
      expect(new DataView(bytes.buffer, bytes.byteOffset).getUint32(22, false)).toBe(samples.length);
    } finally {
      encoder.close();
    }
  });

  test("does refuse to encode when the encoder is closed", () => {
    const encoder = createMp3Encoder(16000, 32);
    encoder.close();
    expect(() => encoder.encode(new Int16Array(10))).toThrow("closed");
  });
});
