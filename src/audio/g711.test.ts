import { describe, expect, test } from "bun:test";
import { ffmpegSync } from "../../test/support/audio.ts";
import { decodeG711, encodeG711, isSampleEncoding } from "./g711.ts";
import { bytesToInt16, int16ToBytes } from "./wav.ts";

/** Every 16-bit value once, then a sweep: covers each segment boundary and both clipping ends. */
const ALL_SAMPLES = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);

const FFMPEG_NAMES = { pcm_mulaw: "mulaw", pcm_alaw: "alaw" } as const;

describe("G.711", () => {
  for (const encoding of ["pcm_mulaw", "pcm_alaw"] as const) {
    test(`does map every 16-bit sample to one of the two ${encoding} levels around it`, () => {
      const decoded = decodeG711(encodeG711(ALL_SAMPLES, encoding), encoding);
      const levels = [
        ...new Set(
          decodeG711(
            Uint8Array.from({ length: 256 }, (_, i) => i),
            encoding,
          ),
        ),
      ].sort((a, b) => a - b);
      let wrong = 0;
      let level = 0;
      for (let i = 0; i < ALL_SAMPLES.length; i++) {
        const x = ALL_SAMPLES[i]!;
        while (level < levels.length - 2 && levels[level + 1]! < x) level++;
        const below = levels[level]!;
        const above = levels[level + 1]!;
        const allowed = x <= levels[0]! ? [levels[0]] : x >= levels.at(-1)! ? [levels.at(-1)] : [below, above];
        if (!allowed.includes(decoded[i]!)) wrong++;
      }
      expect(wrong).toBe(0);
    });

    test(`does produce codes ffmpeg decodes to the expected ${encoding} levels`, () => {
      const codes = encodeG711(ALL_SAMPLES, encoding);
      const ffmpeg = bytesToInt16(
        ffmpegSync(
          ["-f", FFMPEG_NAMES[encoding], "-ar", "8000", "-ac", "1", "-i", "pipe:0", "-f", "s16le", "pipe:1"],
          codes,
        ),
      );
      expect(Buffer.from(int16ToBytes(ffmpeg)).equals(Buffer.from(int16ToBytes(decodeG711(codes, encoding))))).toBe(
        true,
      );
      // ffmpeg's own encoder rounds to the nearest level, the standard's truncates within a
      // segment: they agree everywhere but near segment edges.
      const theirs = ffmpegSync(
        [
          "-f",
          "s16le",
          "-ar",
          "8000",
          "-ac",
          "1",
          "-i",
          "pipe:0",
          "-c:a",
          encoding,
          "-f",
          FFMPEG_NAMES[encoding],
          "pipe:1",
        ],
        int16ToBytes(ALL_SAMPLES),
      );
      const agree = codes.reduce((n, code, i) => n + (code === theirs[i] ? 1 : 0), 0);
      expect(agree / codes.length).toBeGreaterThan(0.98);
    });

    test(`does decode every ${encoding} code as ffmpeg does`, () => {
      const codes = Uint8Array.from({ length: 256 }, (_, i) => i);
      const ffmpeg = bytesToInt16(
        ffmpegSync(
          ["-f", FFMPEG_NAMES[encoding], "-ar", "8000", "-ac", "1", "-i", "pipe:0", "-f", "s16le", "pipe:1"],
          codes,
        ),
      );
      expect([...decodeG711(codes, encoding)]).toEqual([...ffmpeg]);
    });
  }

  test("does recognise only the three sample encodings", () => {
    expect(["pcm_s16le", "pcm_mulaw", "pcm_alaw", "ulaw", "", 7].map(isSampleEncoding)).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});
