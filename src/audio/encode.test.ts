import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { AppError } from "../errors/taxonomy.ts";
import { describeEncoding, encodeAudio, encodeAudioStream } from "./encode.ts";
import { AUDIO_FORMATS, type AudioFormat } from "./formats.ts";
import { parseWavHeader } from "./wav.ts";
import { ffprobe } from "../../test/support/audio.ts";
import { tempDir } from "../../test/support/sawt.ts";

const RATE = 22050;
// 8 s: long enough that codec priming/padding (up to ~0.26 s for AAC at 8 kHz) stays under 5 %.
const SECONDS = 8;
const pcm = new Float32Array(RATE * SECONDS);
for (let i = 0; i < pcm.length; i++) pcm[i] = 0.5 * Math.sin((2 * Math.PI * 440 * i) / RATE);

const CODEC: Record<AudioFormat, string> = {
  mp3: "mp3",
  wav: "pcm_s16le",
  opus: "opus",
  flac: "flac",
  aac: "aac",
  pcm: "pcm_s16le",
};
const { path: dir, remove } = tempDir();
afterAll(remove);

async function probeEncoded(bytes: Uint8Array, format: AudioFormat, sampleRate: number, name: string) {
  const path = join(dir, `${name}.${format}`);
  await Bun.write(path, bytes);
  const probe = ffprobe(path, format === "pcm" ? ["-f", "s16le", "-ar", String(sampleRate), "-ac", "1"] : []);
  // ADTS has no length field: ffprobe merely extrapolates one from the first frames' bitrate.
  // The real length is the frame count (1024 samples per AAC frame).
  return format === "aac" ? { ...probe, duration: (probe.packets * 1024) / probe.sampleRate } : probe;
}

describe("encodeAudio", () => {
  for (const format of AUDIO_FORMATS) {
    for (const target of [undefined, 8000] as const) {
      test(`does produce valid mono ${format} when the target rate is ${target ?? "unset"}`, async () => {
        const encoded = await encodeAudio(pcm, RATE, format, { targetSampleRate: target });
        const expectedRate = format === "opus" ? 48000 : (target ?? RATE);
        expect(encoded.sampleRate).toBe(expectedRate);
        expect(encoded.contentType).toBe(describeEncoding(format, RATE, { targetSampleRate: target }).contentType);
        const probe = await probeEncoded(encoded.bytes, format, encoded.sampleRate, `tone-${target ?? "native"}`);
        expect(probe.codecName).toBe(CODEC[format]);
        expect(probe.sampleRate).toBe(expectedRate);
        expect(probe.channels).toBe(1);
        expect(Math.abs(probe.duration - SECONDS) / SECONDS).toBeLessThan(0.05);
      });
    }
  }

  test("does build wav and pcm in-process byte-exactly when no resampling is asked", async () => {
    const wav = await encodeAudio(pcm.subarray(0, 4), RATE, "wav");
    expect(parseWavHeader(wav.bytes)).toMatchObject({ sampleRate: RATE, channels: 1, bitsPerSample: 16, frames: 4 });
    const raw = await encodeAudio(pcm.subarray(0, 4), RATE, "pcm");
    expect(raw.bytes).toEqual(wav.bytes.subarray(44));
    expect(raw.contentType).toBe("audio/pcm");
  });

  test("does pick the nearest supported rate at or above the source when the codec is picky", () => {
    expect(describeEncoding("mp3", 22050).sampleRate).toBe(22050);
    expect(describeEncoding("mp3", 16000).sampleRate).toBe(16000);
    expect(describeEncoding("mp3", 20000).sampleRate).toBe(22050);
    expect(describeEncoding("aac", 96000).sampleRate).toBe(48000);
    expect(describeEncoding("opus", 22050).sampleRate).toBe(48000);
    expect(describeEncoding("flac", 22050, { targetSampleRate: 11025 }).sampleRate).toBe(11025);
  });

  test("does reject a target rate outside 8000-48000 when asked", async () => {
    await expect(encodeAudio(pcm, RATE, "wav", { targetSampleRate: 7999 })).rejects.toThrow(RangeError);
    await expect(encodeAudio(pcm, RATE, "mp3", { targetSampleRate: 48001 })).rejects.toThrow(RangeError);
  });
});

describe("encodeAudioStream", () => {
  async function* chunks(): AsyncGenerator<Float32Array> {
    // Uneven chunk sizes, as sentences come out of a synthesizer.
    const step = [5000, 12000, 777, 30000];
    let offset = 0;
    for (let i = 0; offset < pcm.length; i++) {
      const size = step[i % step.length]!;
      yield pcm.subarray(offset, offset + size);
      offset += size;
    }
  }

  for (const format of AUDIO_FORMATS) {
    test(`does stream a decodable ${format} when fed chunks`, async () => {
      const bytes = new Uint8Array(await new Response(encodeAudioStream(chunks(), RATE, format)).arrayBuffer());
      const { sampleRate } = describeEncoding(format, RATE);
      const probe = await probeEncoded(bytes, format, sampleRate, "stream");
      expect(probe.codecName).toBe(CODEC[format]);
      expect(probe.sampleRate).toBe(sampleRate);
      expect(probe.channels).toBe(1);
      // Streamed FLAC cannot carry its total (0 = unknown), so ffprobe reports no duration for it.
      if (format !== "flac") expect(Math.abs(probe.duration - SECONDS) / SECONDS).toBeLessThan(0.05);
    });
  }

  test("does start the stream with a RIFF header of unknown length when the format is wav", async () => {
    const bytes = new Uint8Array(
      await new Response(encodeAudioStream(chunks(), RATE, "wav", { targetSampleRate: 8000 })).arrayBuffer(),
    );
    const info = parseWavHeader(bytes);
    expect(info.sampleRate).toBe(8000);
    expect(new DataView(bytes.buffer).getUint32(40, true)).toBe(0xffffffff);
    expect(Math.abs(info.frames - 8000 * SECONDS)).toBeLessThan(100);
  });

  test("does pass the synthesizer's error through when the source fails", async () => {
    async function* failing(): AsyncGenerator<Float32Array> {
      yield pcm.subarray(0, 1000);
      throw new AppError("timeout", "Request timeout waiting for GPU");
    }
    for (const format of ["mp3", "wav"] as const) {
      await expect(new Response(encodeAudioStream(failing(), RATE, format)).arrayBuffer()).rejects.toBeInstanceOf(
        AppError,
      );
    }
  });
});
