/**
 * D8 output formats from the real service and the real ffmpeg, checked by the real ffprobe:
 * codec, sample rate, channels and duration (within 5 % of the synthesised PCM), with and without
 * the `sample_rate` extension.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { AUDIO_FORMATS, type AudioFormat } from "../../src/tts/types.ts";
import { ffprobe } from "../support/audio.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { tempDir } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap, startEngine, speechRequest } from "./support.ts";

const CODECS: Record<AudioFormat, string> = {
  mp3: "mp3",
  wav: "pcm_s16le",
  opus: "opus",
  flac: "flac",
  aac: "aac",
  pcm: "pcm_s16le",
};
const CONTENT_TYPES: Record<AudioFormat, string> = {
  mp3: "audio/mpeg",
  wav: "audio/wav",
  opus: "audio/ogg",
  flac: "audio/flac",
  aac: "audio/aac",
  pcm: "audio/pcm",
};
const INPUT = "مرحبا بكم في خدمة العملاء. كيف يمكنني مساعدتك اليوم؟";

describe("output formats", () => {
  const dir = tempDir("sawt-tts-formats-");
  let engine: Awaited<ReturnType<typeof startEngine>>;
  beforeAll(async () => {
    await writePiperPack(join(dir.path, "models", "yara"), {
      name: "ar_text",
      sampleRate: 22050,
      phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
      phonemeType: "text",
    });
    engine = await startEngine(join(dir.path, "models"));
  });
  afterAll(async () => {
    await engine.release();
    dir.remove();
  });

  for (const format of AUDIO_FORMATS) {
    for (const sampleRate of [undefined, 8000, 16000]) {
      test(`does encode ${format} that ffprobe reads back when sample_rate is ${sampleRate ?? "omitted"}`, async () => {
        const result = await engine.service.synthesize(
          speechRequest({ input: INPUT, response_format: format, ...(sampleRate ? { sample_rate: sampleRate } : {}) }),
        );
        expect(result.format).toBe(format);
        expect(result.contentType).toBe(CONTENT_TYPES[format]);
        // Opus always decodes at 48 kHz; every other format keeps the voice's or the asked rate.
        const expectedRate = format === "opus" ? 48000 : (sampleRate ?? 22050);
        expect(result.sampleRate).toBe(expectedRate);
        const path = join(dir.path, `out-${sampleRate ?? "native"}.${format}`);
        await Bun.write(path, result.audio);
        const probe = ffprobe(
          path,
          format === "pcm" ? ["-f", "s16le", "-sample_rate", String(result.sampleRate), "-ch_layout", "mono"] : [],
        );
        expect(probe.codecName).toBe(CODECS[format]);
        expect(probe.sampleRate).toBe(expectedRate);
        expect(probe.channels).toBe(1);
        // Raw ADTS has no duration field (ffprobe would guess from the bitrate): count its 1024-sample frames.
        const duration = format === "aac" ? (probe.packets * 1024) / probe.sampleRate : probe.duration;
        expect(result.durationSeconds).toBeGreaterThan(3);
        expect(Math.abs(duration - result.durationSeconds) / result.durationSeconds).toBeLessThan(0.05);
      });
    }
  }
});
