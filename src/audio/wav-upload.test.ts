import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ffmpegSync } from "../../test/support/audio.ts";
import { englishSpeech } from "../../test/support/fixtures/speech.ts";
import { tempDir } from "../../test/support/sawt.ts";
import { setLogSink } from "../log/logger.ts";
import { concatSamples } from "./concat.ts";
import { decodeArgs, decodeAudioChunks, decodeAudioFile } from "./decode.ts";
import { runFfmpeg } from "./ffmpeg.ts";
import { processesStartedCount } from "./process.ts";
import { inspectWavUpload } from "./wav-upload.ts";
import { parseWavHeader, wavHeader } from "./wav.ts";

const { path: dir, remove } = tempDir("sawt-wav-upload-");
// Real speech: the shared recording where it is beside the checkout, else Sawt's own espeak-ng speech.
const speech = englishSpeech().wav;

let restoreSink: (line: string) => void = () => {};
beforeAll(() => {
  restoreSink = setLogSink(() => {});
});
afterAll(() => {
  setLogSink(restoreSink);
  remove();
});

/** The samples the ffmpeg path gives for `path` (what every upload got before). */
async function viaFfmpeg(path: string, maxDurationSeconds = 3600): Promise<Float32Array> {
  const out = await runFfmpeg(decodeArgs(path, maxDurationSeconds), { timeoutMs: 30_000, maxOutputBytes: 1 << 28 });
  if (!out.ok) throw new Error(`ffmpeg refused ${path}: ${out.reason}`);
  return new Float32Array(out.stdout.buffer, out.stdout.byteOffset, out.stdout.byteLength >> 2).slice();
}

/** Decodes in-process, failing when any child process was started. */
async function inProcess(path: string, maxDurationSeconds?: number): Promise<Float32Array> {
  expect(await inspectWavUpload(path)).not.toBeNull();
  const before = processesStartedCount();
  const { samples } = await decodeAudioFile(path, maxDurationSeconds === undefined ? {} : { maxDurationSeconds });
  expect(processesStartedCount()).toBe(before);
  return samples;
}

/** The speech re-encoded by ffmpeg into a WAV with these output arguments. */
function speechWav(name: string, args: string[]): string {
  const path = join(dir, name);
  ffmpegSync(["-i", speech, "-t", "6", ...args, "-f", "wav", path]);
  return path;
}

/** 16-bit PCM of the speech's first second, for hand-built headers. */
const speechPcm = () => ffmpegSync(["-i", speech, "-t", "1", "-f", "s16le", "-ac", "1", "-ar", "16000", "pipe:1"]);

/** A RIFF/WAVE file from a fmt chunk body, a data size field and the bytes that follow it. */
function riff(fmt: Uint8Array, declared: number, data: Uint8Array, after = new Uint8Array(0)): Uint8Array {
  const out = new Uint8Array(12 + 8 + fmt.length + 8 + data.length + after.length);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode("RIFF"), 0);
  view.setUint32(4, out.length - 8, true);
  out.set(new TextEncoder().encode("WAVEfmt "), 8);
  view.setUint32(16, fmt.length, true);
  out.set(fmt, 20);
  out.set(new TextEncoder().encode("data"), 20 + fmt.length);
  view.setUint32(24 + fmt.length, declared, true);
  out.set(data, 28 + fmt.length);
  out.set(after, 28 + fmt.length + data.length);
  return out;
}

/** A WAVE_FORMAT_EXTENSIBLE fmt body of 16-bit PCM with this channel mask. */
function extensibleFmt(channels: number, mask: number): Uint8Array {
  const fmt = new Uint8Array(40);
  const view = new DataView(fmt.buffer);
  view.setUint16(0, 0xfffe, true);
  view.setUint16(2, channels, true);
  view.setUint32(4, 16000, true);
  view.setUint32(8, 16000 * 2 * channels, true);
  view.setUint16(12, 2 * channels, true);
  view.setUint16(14, 16, true);
  view.setUint16(16, 22, true);
  view.setUint16(18, 16, true);
  view.setUint32(20, mask, true);
  fmt.set([1, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xaa, 0, 0x38, 0x9b, 0x71], 24);
  return fmt;
}

function write(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

describe("WAV uploads read in-process", () => {
  test("does give ffmpeg's samples exactly for 16 kHz 16-bit mono speech, with no process started", async () => {
    const samples = await inProcess(speech);
    expect(samples.length).toBe(parseWavHeader(readFileSync(speech)).frames);
    expect(samples.length).toBeGreaterThan(10 * 16000);
    expect(samples).toEqual(await viaFfmpeg(speech));
  });

  const exact: [string, () => string][] = [
    ["16-bit stereo", () => speechWav("s16-stereo.wav", ["-ac", "2", "-c:a", "pcm_s16le"])],
    ["float mono", () => speechWav("f32.wav", ["-c:a", "pcm_f32le"])],
    ["float stereo", () => speechWav("f32-stereo.wav", ["-ac", "2", "-c:a", "pcm_f32le"])],
    ["μ-law", () => speechWav("mulaw.wav", ["-c:a", "pcm_mulaw"])],
    ["A-law", () => speechWav("alaw.wav", ["-c:a", "pcm_alaw"])],
    ["extensible stereo", () => write("ext.wav", riff(extensibleFmt(2, 3), 16000 * 2, speechPcm()))],
    ["a streamed size (0xFFFFFFFF)", () => write("streamed.wav", Buffer.concat([wavHeader(16000), speechPcm()]))],
    ["a data size past the end of a cut file", () => write("cut.wav", riff(extensibleFmt(1, 4), 99_999, speechPcm()))],
    ["an odd trailing byte", () => write("odd.wav", riff(extensibleFmt(1, 0), 32_001, speechPcm(), Uint8Array.of(7)))],
    [
      "a chunk after the data",
      () => write("list.wav", riff(extensibleFmt(1, 4), 32_000, speechPcm(), Buffer.from("LIST\x04\x00\x00\x00abcd"))),
    ],
  ];
  test.each(exact)("does give ffmpeg's samples exactly for a 16 kHz WAV with %s", async (_what, make) => {
    const path = make();
    const samples = await inProcess(path);
    expect(samples.length).toBeGreaterThanOrEqual(8000);
    expect(samples).toEqual(await viaFfmpeg(path));
  });

  const resampled: [string, string[]][] = [
    // 8 kHz audio as telephony carries it, within G.711's 300–3400 Hz band: the two resamplers part
    // only in their transition bands just under 4 kHz, where espeak-ng's speech has more energy
    // than a recording (an unfiltered resample gives 28 dB on it, 40 dB on the recording).
    ["8 kHz 16-bit", ["-af", "aresample=8000:cutoff=0.8", "-c:a", "pcm_s16le"]],
    ["8 kHz μ-law", ["-af", "aresample=8000:cutoff=0.8", "-c:a", "pcm_mulaw"]],
    ["22.05 kHz 16-bit", ["-ar", "22050", "-c:a", "pcm_s16le"]],
    ["44.1 kHz 16-bit stereo", ["-ar", "44100", "-ac", "2", "-c:a", "pcm_s16le"]],
    ["48 kHz float", ["-ar", "48000", "-c:a", "pcm_f32le"]],
  ];
  test.each(resampled)("does give ffmpeg's length and samples within 35 dB for %s", async (name, args) => {
    const path = speechWav(`${name.replaceAll(" ", "-")}.wav`, args);
    const samples = await inProcess(path);
    const reference = await viaFfmpeg(path);
    expect(samples.length).toBe(reference.length);
    let error = 0;
    let signal = 0;
    for (let i = 0; i < reference.length; i++) {
      error += (samples[i]! - reference[i]!) ** 2;
      signal += reference[i]! ** 2;
    }
    expect(10 * Math.log10(signal / error)).toBeGreaterThan(35);
  });

  test("does stop at maxDurationSeconds where ffmpeg stops", async () => {
    const resampledPath = speechWav("cap-22050.wav", ["-ar", "22050", "-c:a", "pcm_s16le"]);
    for (const path of [speech, resampledPath]) {
      const samples = await inProcess(path, 1.5);
      expect(samples.length).toBe(24_000);
      expect(samples.length).toBe((await viaFfmpeg(path, 1.5)).length);
    }
    expect(await inProcess(speech, 1.5)).toEqual(await viaFfmpeg(speech, 1.5));
  });

  test("does hand out chunks from the upload itself: no spool, no process", async () => {
    const spoolDir = join(dir, "spool");
    mkdirSync(spoolDir);
    const before = processesStartedCount();
    const chunks: Float32Array[] = [];
    for await (const chunk of decodeAudioChunks(speech, { spoolDir, chunkSamples: 7000 })) {
      chunks.push(chunk);
      expect(readdirSync(spoolDir)).toEqual([]);
    }
    expect(processesStartedCount()).toBe(before);
    expect(chunks.every((c) => c.length <= 7000)).toBe(true);
    expect(chunks.slice(0, -1).every((c) => c.length === 7000)).toBe(true);
    expect(concatSamples(chunks)).toEqual(await viaFfmpeg(speech));
  });

  const toFfmpeg: [string, () => Uint8Array][] = [
    ["24-bit PCM", () => readFileSync(speechWav("s24.wav", ["-c:a", "pcm_s24le"]))],
    ["three channels", () => readFileSync(speechWav("three.wav", ["-ac", "3", "-c:a", "pcm_s16le"]))],
    ["a side-channel stereo layout", () => riff(extensibleFmt(2, 0x600), 16000 * 2, speechPcm())],
    ["a zero data size", () => riff(extensibleFmt(1, 4), 0, speechPcm())],
    ["no sample frame", () => riff(extensibleFmt(1, 4), 1, Uint8Array.of(1))],
    ["a truncated header", () => readFileSync(speech).subarray(0, 30)],
  ];
  test.each(toFfmpeg)("does leave a WAV with %s to ffmpeg", async (name, make) => {
    const path = write(`${name.replaceAll(" ", "-")}.wav`, make());
    expect(await inspectWavUpload(path)).toBeNull();
    const before = processesStartedCount();
    await decodeAudioFile(path).catch(() => undefined);
    expect(processesStartedCount()).toBe(before + 1);
  });
});
