import { describe, expect, test } from "bun:test";
import { PackError } from "../../models/errors.ts";
import { parsePiperConfig, parseSherpaVitsConfig, parseTokens } from "./config.ts";

const ids = { _: [0], "^": [1], $: [2], " ": [3], a: [4], b: [5, 6] };
const piper = (over: Record<string, unknown> = {}) => ({
  audio: { sample_rate: 22050 },
  espeak: { voice: "ar" },
  language: { family: "ar", code: "ar_JO" },
  phoneme_type: "espeak",
  phoneme_id_map: ids,
  num_speakers: 1,
  ...over,
});

describe("parsePiperConfig", () => {
  test("does read a published-style config with Piper's defaulted scales", () => {
    const c = parsePiperConfig(piper(), "/m/v.onnx");
    expect(c).toMatchObject({
      family: "piper",
      sampleRate: 22050,
      phonemeType: "espeak",
      espeakVoice: "ar",
      language: "ar",
      numSpeakers: 1,
    });
    expect(c.inference).toEqual({ noiseScale: 0.667, lengthScale: 1, noiseW: 0.8 });
    expect(c.phonemeIdMap.get("b")).toEqual([5, 6]);
    expect(Object.isFrozen(c)).toBe(true);
  });

  test("does take the pack's own scales and an English espeak voice", () => {
    const c = parsePiperConfig(
      piper({ espeak: { voice: "en-us" }, inference: { noise_scale: 0.5, length_scale: 1.2, noise_w: 0.6 } }),
      "/m/v.onnx",
    );
    expect(c.language).toBe("en");
    expect(c.inference).toEqual({ noiseScale: 0.5, lengthScale: 1.2, noiseW: 0.6 });
  });

  test("does reject configs that break the contract, naming the key", () => {
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ audio: {} }, "audio.sample_rate"],
      [{ phoneme_type: "pinyin" }, "phoneme_type"],
      [{ espeak: {} }, "espeak.voice"],
      [{ phoneme_id_map: { _: [0], "^": [1] } }, '"$"'],
      [{ phoneme_id_map: { ...ids, c: [-1] } }, '"c"'],
      [{ num_symbols: 5 }, '"b"'],
      [{ num_speakers: 2, speaker_id_map: { x: 2 } }, "speaker_id_map"],
      [{ inference: { length_scale: 0 } }, "inference.length_scale"],
    ];
    for (const [over, key] of bad) {
      expect(() => parsePiperConfig(piper(over), "/m/v.onnx")).toThrow(PackError);
      expect(() => parsePiperConfig(piper(over), "/m/v.onnx")).toThrow(key);
    }
  });

  test("does accept a text voice without an espeak block, reading numbers in its language", () => {
    const c = parsePiperConfig(
      piper({ phoneme_type: "text", espeak: undefined, language: { family: "en" } }),
      "/m/v.onnx",
    );
    expect(c).toMatchObject({ phonemeType: "text", language: "en" });
  });
});

describe("tokens.txt and sherpa-onnx metadata", () => {
  test("does read a space symbol and keep the first id of a repeated symbol", () => {
    const map = parseTokens("_ 0\n^ 1\n$ 2\n  3\na 4\na 9\n");
    expect(map.get(" ")).toEqual([3]);
    expect(map.get("a")).toEqual([4]);
    expect(() => parseTokens("x\n")).toThrow("line 1");
  });

  test("does build an espeak VITS config from sherpa-onnx's Piper conversion metadata", () => {
    const c = parseSherpaVitsConfig(
      { model_type: "vits", comment: "piper", voice: "ar", sample_rate: "16000", n_speakers: "3" },
      "_ 0\n^ 1\n$ 2\n",
      "/m/model.onnx",
    );
    expect(c).toMatchObject({
      family: "vits",
      sampleRate: 16000,
      phonemeType: "espeak",
      espeakVoice: "ar",
      numSpeakers: 3,
    });
  });

  test("does refuse a model whose metadata is not VITS or lacks its rate", () => {
    expect(() => parseSherpaVitsConfig({ model_type: "whisper" }, "", "/m")).toThrow("model_type");
    expect(() =>
      parseSherpaVitsConfig({ model_type: "vits", comment: "piper", voice: "ar" }, "_ 0\n^ 1\n$ 2\n", "/m"),
    ).toThrow("sample_rate");
    expect(() =>
      parseSherpaVitsConfig({ model_type: "vits", comment: "piper", sample_rate: "16000" }, "_ 0\n^ 1\n$ 2\n", "/m"),
    ).toThrow("voice");
  });
});
