import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { readOnnxModelInfoFile } from "../../../src/onnx/metadata.ts";
import { decodeToneAudio } from "./tone-decoder.ts";
import { maxToneId, writePiperPack, writeSherpaVitsPack } from "./tone-voice.ts";

const dir = mkdtempSync(join(tmpdir(), "sawt-packs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MAP = { a: 4, ʃ: [5], ː: 6 };

describe("writePiperPack", () => {
  test("writes the model and a config in Piper's published layout", async () => {
    const pack = await writePiperPack(join(dir, "piper1"), {
      name: "ar_JO-tone-medium",
      sampleRate: 22050,
      phonemeIdMap: MAP,
    });
    expect(pack.modelPath).toBe(join(dir, "piper1", "ar_JO-tone-medium.onnx"));
    expect(pack.configPath).toBe(`${pack.modelPath}.json`);
    const text = await Bun.file(pack.configPath).text();
    expect(text).toStartWith('{\n    "dataset": "ar_JO-tone-medium",\n    "audio": {\n        "sample_rate": 22050,');
    expect(text).toContain('"name_native": "العربية"'); // not \u-escaped, as Piper writes it
    const config = JSON.parse(text);
    expect(Object.keys(config)).toEqual([
      "dataset",
      "audio",
      "espeak",
      "language",
      "inference",
      "phoneme_type",
      "phoneme_map",
      "phoneme_id_map",
      "num_symbols",
      "num_speakers",
      "speaker_id_map",
      "piper_version",
    ]);
    expect(config.audio).toEqual({ sample_rate: 22050, quality: "medium" });
    expect(config.espeak).toEqual({ voice: "ar" });
    expect(config.language.code).toBe("ar_JO");
    expect(config.inference).toEqual({ noise_scale: 0.667, length_scale: 1, noise_w: 0.8 });
    expect(config.phoneme_type).toBe("espeak");
    expect(config.phoneme_id_map).toEqual({ _: [0], "^": [1], $: [2], " ": [3], a: [4], ʃ: [5], ː: [6] });
    expect(config.num_symbols).toBe(7);
    expect(config.num_speakers).toBe(1);
    expect(config.speaker_id_map).toEqual({});
    const session = await ort.InferenceSession.create(pack.modelPath);
    expect(session.inputNames).toEqual(["input", "input_lengths", "scales"]);
    await session.release();
  });

  test("writes the given inference scales, phoneme type and espeak voice when overridden", async () => {
    const { config } = await writePiperPack(join(dir, "piper2"), {
      name: "en",
      sampleRate: 16000,
      phonemeIdMap: MAP,
      phonemeType: "text",
      espeakVoice: "en-us",
      lengthScale: 1.5,
      noiseScale: 0.5,
      noiseW: 0.6,
    });
    expect(config).toMatchObject({
      phoneme_type: "text",
      espeak: { voice: "en-us" },
      inference: { noise_scale: 0.5, length_scale: 1.5, noise_w: 0.6 },
    });
  });

  test("adds the sid input when the speaker map has several speakers", async () => {
    const speakerIdMap = { huda: 0, omar: 1, layla: 2 };
    const pack = await writePiperPack(join(dir, "piper3"), {
      name: "multi",
      sampleRate: 16000,
      phonemeIdMap: MAP,
      speakerIdMap,
    });
    expect(pack.config).toMatchObject({ num_speakers: 3, speaker_id_map: speakerIdMap });
    const info = readOnnxModelInfoFile(pack.modelPath);
    expect(info.inputs.map((i) => i.name)).toEqual(["input", "input_lengths", "scales", "sid"]);
  });

  test("throws when an id has no distinguishable tone at the sample rate", async () => {
    const limit = maxToneId(16000);
    const options = { name: "bad", sampleRate: 16000, phonemeIdMap: { x: limit + 1 } };
    await expect(writePiperPack(join(dir, "bad"), options)).rejects.toThrow(`outside the tone range 0..${limit}`);
  });

  test("throws when there are more speakers than amplitudes", async () => {
    const speakerIdMap = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`s${i}`, i]));
    const options = { name: "many", sampleRate: 16000, phonemeIdMap: MAP, speakerIdMap };
    await expect(writePiperPack(join(dir, "many"), options)).rejects.toThrow(/at most 15 speakers/);
  });
});

describe("writeSherpaVitsPack", () => {
  test("writes sherpa-onnx's Piper metadata into model.onnx", async () => {
    const pack = await writeSherpaVitsPack(join(dir, "sherpa1"), { sampleRate: 22050, phonemeIdMap: MAP });
    expect(pack.modelPath).toBe(join(dir, "sherpa1", "model.onnx"));
    expect(readOnnxModelInfoFile(pack.modelPath).metadata).toEqual({
      model_type: "vits",
      comment: "piper",
      language: "Arabic",
      voice: "ar",
      has_espeak: "1",
      n_speakers: "1",
      sample_rate: "22050",
    });
  });

  test("writes one '<symbol> <id>' line per symbol, the space symbol included", async () => {
    const pack = await writeSherpaVitsPack(join(dir, "sherpa2"), {
      sampleRate: 16000,
      phonemeIdMap: { ...MAP, "\n": 7 },
    });
    expect(await Bun.file(pack.tokensPath).text()).toBe("_ 0\n^ 1\n$ 2\n  3\na 4\nʃ 5\nː 6\n");
  });

  test("adds extra metadata and sid when asked for several speakers", async () => {
    const pack = await writeSherpaVitsPack(join(dir, "sherpa3"), {
      sampleRate: 16000,
      phonemeIdMap: MAP,
      numSpeakers: 2,
      modelFile: "vits-tone.onnx",
      extraMetadata: { add_blank: 0, punctuation: ". , ! ?" },
    });
    const info = readOnnxModelInfoFile(pack.modelPath);
    expect(info.metadata).toMatchObject({ n_speakers: "2", add_blank: "0", punctuation: ". , ! ?" });
    expect(info.inputs.map((i) => i.name)).toContain("sid");
  });

  test("produces the same audio as the Piper pack when fed the same ids", async () => {
    const piper = await writePiperPack(join(dir, "same-piper"), { name: "v", sampleRate: 16000, phonemeIdMap: MAP });
    const sherpa = await writeSherpaVitsPack(join(dir, "same-sherpa"), { sampleRate: 16000, phonemeIdMap: MAP });
    const ids = [1, 0, 4, 0, 5, 0, 6, 0, 2];
    const feeds = {
      input: new ort.Tensor("int64", BigInt64Array.from(ids, BigInt), [1, ids.length]),
      input_lengths: new ort.Tensor("int64", BigInt64Array.of(BigInt(ids.length)), [1]),
      scales: new ort.Tensor("float32", Float32Array.of(0.667, 1, 0.8), [3]),
    };
    const audio: Float32Array[] = [];
    for (const path of [piper.modelPath, sherpa.modelPath]) {
      const session = await ort.InferenceSession.create(path);
      audio.push((await session.run(feeds)).output?.data as Float32Array);
      await session.release();
    }
    expect(audio[1]).toEqual(audio[0] as Float32Array);
    expect(decodeToneAudio(audio[0] as Float32Array, 16000).ids).toEqual(ids);
  });
});
