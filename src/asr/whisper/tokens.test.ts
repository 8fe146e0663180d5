import { describe, expect, test } from "bun:test";
import { PackError } from "../../models/errors.ts";
import { arabicPrompt, type WhisperMeta } from "./config.ts";
import { detokenize, parseWhisperTokens } from "./tokens.ts";

const b64 = (bytes: number[]) => Buffer.from(bytes).toString("base64");

describe("Whisper tokens", () => {
  test("does join token bytes before decoding when a letter straddles two tokens", () => {
    // "سلام" = d8 b3 d9 84 d8 a7 d9 85, cut so no token holds a whole letter.
    const table = parseWhisperTokens(
      `${b64([0xd8])} 0\n${b64([0xb3, 0xd9])} 1\n${b64([0x84, 0xd8, 0xa7])} 2\n${b64([0xd9, 0x85])} 3\n`,
      "t",
    );
    expect(detokenize([0, 1, 2, 3], table)).toBe("سلام");
    expect(detokenize([0], table)).toBe("\uFFFD");
  });

  test("does skip ids without bytes (special tokens) when decoding", () => {
    const table = parseWhisperTokens(`${b64([0x61])} 0\n`, "t");
    expect(detokenize([50258, 0, 50363], table)).toBe("a");
  });

  test("does refuse a line that is not base64 and an id", () => {
    expect(() => parseWhisperTokens("abc\n", "x-tokens.txt")).toThrow(PackError);
  });

  test("does force Arabic and transcribe into the model's sot_sequence and append no_timestamps", () => {
    const meta = {
      sotSequence: [50258, 50259, 50358],
      languages: new Map([
        ["en", 50259],
        ["ar", 50272],
      ]),
      transcribe: 50359,
      noTimestamps: 50363,
    } as unknown as WhisperMeta;
    expect(arabicPrompt(meta)).toEqual([50258, 50272, 50359, 50363]);
  });
});
