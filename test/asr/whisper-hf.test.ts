/**
 * Whisper in the Hugging Face layout on constructed packs built from the publishers' contract
 * (test/support/models/whisper-hf.ts cites the transformers.js and Optimum sources): merged and
 * split decoders, top-level and `onnx/` files with precision suffixes, 80 and 128 mel bins, the
 * language and task tokens from generation_config.json, timestamp tokens turned into segment
 * times. A decode with one thing wrong at a time (language, task, timestamps off, caches not
 * fed back, mel bins) runs the same model and must come out wrong.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { packTree } from "../../src/models/scan.ts";
import { whisperLogMel } from "../../src/audio/features/whisper-mel.ts";
import { inspectAsrPacks, loadAsrPacks, type LoadedAsrPacks } from "../../src/asr/packs.ts";
import { configureHfWhisper, type HfWhisperConfig } from "../../src/asr/whisper-hf/config.ts";
import { loadHfWhisper } from "../../src/asr/whisper-hf/model.ts";
import { decodeTokens, type WhisperWindow } from "../../src/asr/whisper/decode.ts";
import type { WhisperBackend } from "../../src/asr/whisper/pipeline.ts";
import { detokenize } from "../../src/asr/whisper/tokens.ts";
import { packFiles } from "../../src/models/pack.ts";
import { HF_WHISPER_SCRIPT, writeHfWhisperPack } from "../support/models/whisper-hf.ts";
import { modelsDir, sine } from "./support.ts";

let models: ReturnType<typeof modelsDir>;
let packs: LoadedAsrPacks;

beforeAll(async () => {
  models = modelsDir();
  await writeHfWhisperPack(join(models.dir, "whisper-merged"), HF_WHISPER_SCRIPT);
  await writeHfWhisperPack(join(models.dir, "whisper-split-q"), {
    ...HF_WHISPER_SCRIPT,
    decoder: "split",
    folder: "onnx/",
    suffix: "_quantized",
  });
  await writeHfWhisperPack(join(models.dir, "whisper-v3"), { ...HF_WHISPER_SCRIPT, nMels: 128 });
  packs = await loadAsrPacks(models.dir);
});

afterAll(async () => {
  await packs?.release();
  models?.remove();
});

function configOf(name: string): HfWhisperConfig {
  const dir = join(models.dir, name);
  return configureHfWhisper(packFiles(name, dir, packTree(dir)));
}

describe("Whisper in the Hugging Face layout", () => {
  test("does claim every layout as whisper-hf and leave none broken", () => {
    const scan = inspectAsrPacks(models.dir);
    expect(scan.broken).toEqual([]);
    expect(scan.usable.map((p) => [p.name, p.family])).toEqual([
      ["whisper-merged", "whisper-hf"],
      ["whisper-split-q", "whisper-hf"],
      ["whisper-v3", "whisper-hf"],
    ]);
    expect(readdirSync(join(models.dir, "whisper-split-q", "onnx")).sort()).toEqual([
      "decoder_model_quantized.onnx",
      "decoder_with_past_model_quantized.onnx",
      "encoder_model_quantized.onnx",
    ]);
  });

  test.each(["whisper-merged", "whisper-split-q", "whisper-v3"])(
    "does transcribe each row with its timestamp segments when run as %s",
    async (name) => {
      const recognizer = packs.recognizers.get(name)!;
      const first = await recognizer.recognize(sine(500, 2));
      expect(first.text).toBe("السلام عليكم");
      expect(first.segments).toEqual([{ text: "السلام عليكم", start: 0.1, end: 1.2 }]);
      const second = await recognizer.recognize(sine(3000, 2));
      expect(second.text).toBe("صباح الخير يا أصدقاء");
      expect(second.segments).toEqual([
        { text: "صباح الخير", start: 0.04, end: 0.8 },
        { text: "يا أصدقاء", start: 1, end: 1.8 },
      ]);
    },
  );

  test("does read the language and task tokens from generation_config.json", () => {
    const config = configOf("whisper-merged");
    const generation = JSON.parse(readFileSync(join(models.dir, "whisper-merged", "generation_config.json"), "utf8"));
    expect(config.prompt).toEqual([
      generation.decoder_start_token_id,
      generation.lang_to_id["<|ar|>"],
      generation.task_to_id.transcribe,
    ]);
    expect(config.timestamps?.begin).toBe(generation.no_timestamps_token_id + 1);
  });
});

/** A decode of `audio` on `name` with one fault. */
async function faultyDecode(
  name: string,
  fault: "english" | "translate" | "no-timestamps" | "rules-off" | "cache-dropped" | "mel-80" | "none",
): Promise<string> {
  const config = configOf(name);
  const backend: WhisperBackend = await loadHfWhisper(config, name);
  try {
    const { meta } = config;
    const nMels = fault === "mel-80" ? 80 : meta.nMels;
    const mel = whisperLogMel(sine(500, 2), { nMels });
    const windows = await backend.encode(mel.data, mel.nFrames);
    let prompt = [...config.prompt];
    if (fault === "english") prompt[1] = meta.languages.get("en")!;
    if (fault === "translate") prompt[2] = meta.translate!;
    if (fault === "no-timestamps") prompt = [...prompt, meta.noTimestamps];
    // Each feed on a new decoder: the caches of earlier steps are lost.
    const window: WhisperWindow = fault === "cache-dropped" ? { feed: (t) => windows().feed(t) } : windows();
    const timestamps = fault === "no-timestamps" || fault === "rules-off" ? null : config.timestamps;
    const decoded = await decodeTokens(window, meta, 2, { prompt, timestamps });
    return detokenize(decoded.ids, config.tokenBytes).trim();
  } catch (error) {
    return `error: ${(error as Error).message}`;
  } finally {
    await backend.release();
  }
}

describe("a decode that gets one thing wrong", () => {
  test("does give the right text without a fault", async () => {
    expect(await faultyDecode("whisper-merged", "none")).toBe("السلام عليكم");
    expect(await faultyDecode("whisper-split-q", "none")).toBe("السلام عليكم");
  });

  test.each([
    ["the language token is English", "english"],
    ["the task token is translate", "translate"],
    ["timestamps are turned off", "no-timestamps"],
    ["timestamp tokens are decoded without the timestamp rules", "rules-off"],
    ["the caches are not fed back", "cache-dropped"],
  ] as const)("does give wrong text when %s", async (_, fault) => {
    expect(await faultyDecode("whisper-merged", fault)).not.toBe("السلام عليكم");
    expect(await faultyDecode("whisper-split-q", fault)).not.toBe("السلام عليكم");
  });

  test("does fail when an 80-bin log-mel is fed to a 128-bin model", async () => {
    expect(await faultyDecode("whisper-v3", "mel-80")).toStartWith("error:");
  });
});

describe("prompt and temperature as in the sherpa-onnx layout", () => {
  test("does feed the prompt as previous-text context before the task prompt and fall back by temperature", async () => {
    const recognizer = packs.recognizers.get("whisper-merged")!;
    const backend = (recognizer as unknown as { backend: WhisperBackend }).backend;
    const encode = backend.encode;
    const firstFeeds: number[][] = [];
    backend.encode = async (mel, frames) => {
      const windows = await encode(mel, frames);
      return () => {
        const window = windows();
        let first = true;
        return {
          feed(tokens) {
            if (first) firstFeeds.push([...tokens]);
            first = false;
            return window.feed(tokens);
          },
        };
      };
    };
    try {
      const config = configOf("whisper-merged");
      const result = await recognizer.recognize(sine(500, 2), undefined, { prompt: "#" });
      const { meta } = config;
      // " #": the space piece and the "#" piece, after <|startofprev|>, then the task prompt.
      const context = [...config.tokenBytes].filter(([, b]) => ["20", "23"].includes(Buffer.from(b).toString("hex")));
      expect(firstFeeds[0]).toEqual([
        meta.sotPrev!,
        ...context.map(([id]) => id).sort((a, b) => a - b),
        ...config.prompt,
      ]);
      // The constructed model checks its prompt from position 0, so with context it answers its
      // error token on every try: the decode falls back through every temperature to 1.0.
      expect(firstFeeds.length).toBe(6);
      expect(result.decoding?.temperature).toBe(1);
    } finally {
      backend.encode = encode;
    }
  });
});
