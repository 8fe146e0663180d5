/**
 * Cache-aware streaming NeMo families (sherpa-onnx's online CTC and transducer layouts) on
 * constructed models whose outputs depend on every carried cache and on the chunk shift: tone
 * speech fed in 20 ms pieces reads back exactly, partial results grow as the audio arrives and
 * end in the same text as decoding the whole clip; chunk loops that drop a cache, lose the cache
 * length, advance by the window instead of the shift, or reset the CTC blank state per chunk read
 * wrong text from the same model.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { StreamingCtcSearch, type StreamingCtcRecognizer } from "../../src/asr/nemo-streaming/ctc/pipeline.ts";
import type { CacheAwareEncoder, EncoderCaches } from "../../src/asr/nemo-streaming/encoder.ts";
import { StreamingFeatures } from "../../src/asr/nemo-streaming/features.ts";
import { tailPadding, type ChunkDecoder } from "../../src/asr/nemo-streaming/stream.ts";
import {
  StreamingRnntDecoder,
  type StreamingTransducerRecognizer,
} from "../../src/asr/nemo-streaming/transducer/pipeline.ts";
import { inspectAsrPacks, loadAsrPacks, type LoadedAsrPacks } from "../../src/asr/packs.ts";
import { isStreamingRecognizer, type StreamingRecognizer } from "../../src/asr/recognizer.ts";
import { letterToneAudio } from "../support/models/ctc.ts";
import { writeStreamingCtcPack, writeStreamingTransducerPack } from "../support/models/streaming.ts";
import { concat, modelsDir, silence } from "./support.ts";

const TEXT = "سلام عليكم ورحمة الله";
let models: ReturnType<typeof modelsDir>;
let packs: LoadedAsrPacks;
let ctc: StreamingCtcRecognizer;
let transducer: StreamingTransducerRecognizer;

beforeAll(async () => {
  models = modelsDir();
  await writeStreamingCtcPack(join(models.dir, "tone-streaming-ctc"));
  await writeStreamingTransducerPack(join(models.dir, "tone-streaming-rnnt"));
  packs = await loadAsrPacks(models.dir);
  ctc = packs.recognizers.get("tone-streaming-ctc") as StreamingCtcRecognizer;
  transducer = packs.recognizers.get("tone-streaming-rnnt") as StreamingTransducerRecognizer;
});

afterAll(async () => {
  await packs?.release();
  models?.remove();
});

/** Feeds `audio` in 20 ms pieces, decoding after each; the partial texts and the final one. */
async function stream(recognizer: StreamingRecognizer, audio: Float32Array) {
  const live = recognizer.createStream();
  const partials: string[] = [];
  for (let at = 0; at < audio.length; at += 320) {
    live.acceptWaveform(audio.subarray(at, at + 320));
    partials.push((await live.decode()).text);
  }
  return { partials, final: await live.finalize() };
}

interface Faults {
  /** Feed the initial caches to every chunk. */
  readonly dropCaches?: boolean;
  /** Carry the caches but feed cache_last_channel_len 0. */
  readonly dropLength?: boolean;
  /** Carry all but cache_last_channel (fed zeros). */
  readonly dropChannel?: boolean;
  /** Carry all but cache_last_time (fed zeros). */
  readonly dropTime?: boolean;
  /** Advance by window_size instead of chunk_shift (no overlap). */
  readonly advanceByWindow?: boolean;
}

/** A chunk loop written here, sherpa-onnx's way unless told to make a mistake. */
async function chunkLoop(encoder: CacheAwareEncoder, decoder: ChunkDecoder, audio: Float32Array, faults: Faults = {}) {
  const { windowSize, chunkShift, featDim } = encoder.meta;
  const features = new StreamingFeatures(featDim);
  features.accept(audio);
  features.accept(new Float32Array(tailPadding(windowSize, chunkShift)));
  let caches: EncoderCaches = encoder.initialCaches();
  let frames = 0;
  for (let at = 0; at + windowSize <= features.available; at += faults.advanceByWindow ? windowSize : chunkShift) {
    const zero = encoder.initialCaches();
    const fed: EncoderCaches = [
      faults.dropCaches || faults.dropChannel ? zero[0] : caches[0],
      faults.dropCaches || faults.dropTime ? zero[1] : caches[1],
      faults.dropCaches || faults.dropLength ? zero[2] : caches[2],
    ];
    const out = await encoder.run(features.window(at, windowSize), fed);
    caches = out.caches;
    frames += await decoder.decodeChunk(out.output, frames);
  }
  return decoder.text().text;
}

describe("streaming NeMo families", () => {
  test("does list both packs as streaming recognisers", () => {
    const scan = inspectAsrPacks(models.dir);
    expect(scan.usable.map((p) => [p.name, p.family])).toEqual([
      ["tone-streaming-ctc", "nemo-streaming-ctc"],
      ["tone-streaming-rnnt", "nemo-streaming-transducer"],
    ]);
    expect(isStreamingRecognizer(ctc) && isStreamingRecognizer(transducer)).toBe(true);
    expect(ctc.chunkSeconds).toBeCloseTo(0.12, 5);
  });

  test.each(["CTC", "transducer"])(
    "does stream tone speech in 20 ms pieces to the exact text with %s",
    async (kind) => {
      const recognizer = kind === "CTC" ? ctc : transducer;
      const audio = concat(silence(0.3), letterToneAudio(TEXT), silence(0.4));
      const { partials, final } = await stream(recognizer, audio);
      expect(final.text).toBe(TEXT);
      expect((await recognizer.recognize(audio)).text).toBe(TEXT);
      // Partials arrive while the audio is still coming, and each extends the one before.
      const halfway = partials[Math.floor(partials.length / 2)]!;
      expect(halfway.length).toBeGreaterThan(0);
      expect(TEXT.startsWith(halfway)).toBe(true);
      for (let i = 1; i < partials.length; i++) expect(partials[i]!.startsWith(partials[i - 1]!)).toBe(true);
      const words = final.words!;
      expect(words.map((w) => w.word).join(" ")).toBe(TEXT);
      for (let i = 1; i < words.length; i++) expect(words[i]!.start).toBeGreaterThanOrEqual(words[i - 1]!.end);
    },
  );

  test("does read a doubled letter across the pad between its tones", async () => {
    expect((await ctc.recognize(letterToneAudio("الله"))).text).toBe("الله");
    expect((await transducer.recognize(letterToneAudio("الله"))).text).toBe("الله");
  });

  test.each(["CTC", "transducer"])("does read the text with this file's own correct chunk loop (%s)", async (kind) => {
    const audio = letterToneAudio(TEXT);
    const decoder =
      kind === "CTC"
        ? new StreamingCtcSearch(ctc.config)
        : new StreamingRnntDecoder(transducer.config, transducer.joint);
    expect(await chunkLoop(kind === "CTC" ? ctc.encoder : transducer.encoder, decoder, audio)).toBe(TEXT);
  });

  const faults: [string, Faults][] = [
    ["drops the caches", { dropCaches: true }],
    ["drops the cache length", { dropLength: true }],
    ["drops cache_last_channel", { dropChannel: true }],
    ["drops cache_last_time", { dropTime: true }],
    ["advances by the window instead of the chunk shift", { advanceByWindow: true }],
  ];

  test.each(faults)("does give wrong CTC text when the chunk loop %s", async (_what, fault) => {
    expect(await chunkLoop(ctc.encoder, new StreamingCtcSearch(ctc.config), letterToneAudio(TEXT), fault)).not.toBe(
      TEXT,
    );
  });

  test.each(faults)("does give wrong transducer text when the chunk loop %s", async (_what, fault) => {
    const decoder = new StreamingRnntDecoder(transducer.config, transducer.joint);
    expect(await chunkLoop(transducer.encoder, decoder, letterToneAudio(TEXT), fault)).not.toBe(TEXT);
  });

  test("does give wrong CTC text when the search forgets the last class at each chunk or takes id 0 as blank", async () => {
    const audio = letterToneAudio(TEXT);
    expect(await chunkLoop(ctc.encoder, new StreamingCtcSearch(ctc.config, false), audio)).not.toBe(TEXT);
    expect(await chunkLoop(ctc.encoder, new StreamingCtcSearch({ ...ctc.config, blankId: 0 }), audio)).not.toBe(TEXT);
  });

  test("does compute streaming features equal to the whole-clip features however the audio is cut", async () => {
    const { nemoFbank } = await import("../../src/audio/features/fbank.ts");
    const audio = concat(letterToneAudio(TEXT), silence(0.1));
    const whole = nemoFbank(audio, { normalize: "none" });
    const live = new StreamingFeatures(80);
    for (let at = 0, size = 1; at < audio.length; at += size, size = (size * 7 + 3) % 2999)
      live.accept(audio.subarray(at, at + size));
    const frames = live.available;
    // A frame is final once its window's last sample is in: 200 samples past its centre.
    expect(frames).toBe(Math.floor((audio.length - 200) / 160) + 1);
    const got = live.window(0, frames);
    let worst = 0;
    for (let t = 0; t < frames; t++)
      for (let c = 0; c < 80; c++)
        worst = Math.max(worst, Math.abs(got[c * frames + t]! - whole.data[c * whole.nFrames + t]!));
    expect(worst).toBeLessThan(1e-4);
  });
});
