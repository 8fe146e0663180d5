import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, constants, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AppError } from "../errors/taxonomy.ts";
import { setLogSink } from "../log/logger.ts";
import { decodeAudioFile, DecodeReason } from "./decode.ts";
import { runFfmpeg } from "./ffmpeg.ts";
import { encodeWav } from "./wav.ts";
import { dominantFrequency, ffmpegSync, tone } from "../../test/support/audio.ts";
import { tempDir } from "../../test/support/sawt.ts";

const { path: dir, remove } = tempDir("sawt-decode-");
const source = join(dir, "source.wav");

/** How each accepted upload extension is produced from the same 1 s, 440 Hz tone. */
const UPLOADS: Record<string, string[]> = {
  wav: ["-c:a", "pcm_s16le", "-f", "wav"],
  mp3: ["-c:a", "libmp3lame", "-f", "mp3"],
  mp4: ["-c:a", "aac", "-f", "mp4"],
  m4a: ["-c:a", "aac", "-f", "ipod"],
  mpeg: ["-c:a", "mp2", "-f", "mpeg"], // MPEG-PS
  mpga: ["-c:a", "libmp3lame", "-f", "mp3"],
  ogg: ["-c:a", "libvorbis", "-f", "ogg"],
  webm: ["-c:a", "libopus", "-f", "webm"],
  flac: ["-c:a", "flac", "-f", "flac"],
};

let restoreSink: (line: string) => void = () => {};
beforeAll(() => {
  writeFileSync(source, encodeWav(tone(440, 1, 22050), 22050));
  restoreSink = setLogSink(() => {}); // refusals log at info; keep test output readable
});
afterAll(() => {
  setLogSink(restoreSink);
  remove();
});

/** Runs a decode expected to fail and returns its AppError. */
async function refusal(path: string, timeoutMs = 10_000): Promise<AppError> {
  try {
    await decodeAudioFile(path, { timeoutMs });
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("decode unexpectedly succeeded");
}

function expectRefused(error: AppError, reason: string): void {
  expect(error.kind).toBe("bad_request");
  expect(error.status).toBe(400);
  expect(error.detail).toBe(`Couldn't transcribe the file: ${reason}`);
  expect(error.detail).not.toContain("/");
  expect(error.detail).not.toContain(dir);
}

describe("decodeAudioFile", () => {
  for (const [extension, args] of Object.entries(UPLOADS)) {
    test(`does decode a ${extension} upload to 16 kHz mono with the right length and pitch`, async () => {
      const upload = join(dir, `upload.${extension}`);
      ffmpegSync(["-i", source, ...args, upload]);
      const decoded = await decodeAudioFile(upload);
      expect(decoded.sampleRate).toBe(16000);
      // Codec priming and frame padding add at most a few tens of milliseconds.
      expect(decoded.durationSeconds).toBeGreaterThan(0.95);
      expect(decoded.durationSeconds).toBeLessThan(1.1);
      expect(decoded.samples.length).toBe(Math.round(decoded.durationSeconds * 16000));
      expect(dominantFrequency(decoded.samples.subarray(4000, 12000), 16000)).toBe(440);
    });
  }

  test("does stop at maxDurationSeconds when the upload is longer", async () => {
    const decoded = await decodeAudioFile(source, { maxDurationSeconds: 0.5 });
    expect(decoded.durationSeconds).toBeCloseTo(0.5, 2);
  });

  test("does refuse an empty file as empty audio", async () => {
    const path = join(dir, "empty.wav");
    writeFileSync(path, new Uint8Array(0));
    expectRefused(await refusal(path), DecodeReason.empty);
  });

  test("does refuse random bytes as unsupported or corrupt", async () => {
    const path = join(dir, "noise.mp3");
    const bytes = new Uint8Array(8192);
    let seed = 12345;
    for (let i = 0; i < bytes.length; i++) bytes[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
    writeFileSync(path, bytes);
    expectRefused(await refusal(path), DecodeReason.corrupt);
  });

  test("does refuse an mp3 truncated inside its first frame as unsupported or corrupt", async () => {
    const full = ffmpegSync(["-i", source, "-c:a", "libmp3lame", "-f", "mp3", "pipe:1"]);
    // Keep the ID3v2 tag (10-byte header + syncsafe size) and 60 bytes of the first frame. A cut
    // after whole frames is not an error: ffmpeg decodes the frames that are there.
    const id3End = full[0] === 0x49 ? 10 + ((full[6]! << 21) | (full[7]! << 14) | (full[8]! << 7) | full[9]!) : 0;
    const path = join(dir, "truncated.mp3");
    writeFileSync(path, full.subarray(0, id3End + 60));
    expectRefused(await refusal(path), DecodeReason.corrupt);
  });

  test("does refuse a video-only mp4 as having no audio stream", async () => {
    const path = join(dir, "video-only.mp4");
    ffmpegSync(["-f", "lavfi", "-i", "testsrc=duration=0.5:size=64x64:rate=10", "-c:v", "mpeg4", path]);
    expectRefused(await refusal(path), DecodeReason.noAudio);
  });

  test("does log only a sanitized reason when an upload is refused", async () => {
    const lines: string[] = [];
    const previous = setLogSink((line) => lines.push(line));
    try {
      const path = join(dir, "customer-secret-name.wav");
      writeFileSync(path, "RIFF....WAVEjunk");
      await refusal(path);
    } finally {
      setLogSink(previous);
    }
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).not.toContain("customer-secret-name");
      expect(line).not.toContain(dir);
    }
  });

  test("does report a timeout when decoding runs past its limit", async () => {
    const path = join(dir, "long.wav");
    ffmpegSync(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=600", "-c:a", "pcm_s16le", path]);
    expectRefused(await refusal(path, 50), DecodeReason.timeout);
  });
});

describe("decodeAudioFile with playlists", () => {
  // Each playlist names a sibling file. The control run (plain ffmpeg, no whitelists) proves the
  // playlist really would pull that file in; the hardened run must refuse without touching it.
  const playlists = {
    "list.ffconcat": (target: string) => `ffconcat version 1.0\nfile ${target}\n`,
    "list.m3u8": (target: string) => `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n${target}\n#EXT-X-ENDLIST\n`,
  };

  for (const [name, render] of Object.entries(playlists)) {
    test(`does refuse ${name} that plain ffmpeg would follow`, async () => {
      const real = join(dir, `real-${name}.mp3`);
      ffmpegSync(["-i", source, "-c:a", "libmp3lame", "-f", "mp3", real]);
      const playlist = join(dir, `real-${name}`);
      writeFileSync(playlist, render(`real-${name}.mp3`));

      const control = await runFfmpeg(["-i", playlist, "-ac", "1", "-ar", "16000", "-f", "f32le", "pipe:1"], {
        timeoutMs: 10_000,
        maxOutputBytes: 1 << 22,
      });
      expect(control.ok && control.stdout.byteLength > 16000 * 4 * 0.9).toBe(true);

      expectRefused(await refusal(playlist), DecodeReason.corrupt);
    });

    test(`does not open the file ${name} references when decoding it`, async () => {
      // The referenced "file" is a FIFO: opening it for reading would block ffmpeg until the
      // 5 s timeout, so a fast corrupt-input refusal means it was never opened.
      const fifo = join(dir, `fifo-${name}.mp3`);
      expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
      const playlist = join(dir, `fifo-${name}`);
      writeFileSync(playlist, render(`fifo-${name}.mp3`));
      const started = performance.now();
      expectRefused(await refusal(playlist, 5000), DecodeReason.corrupt);
      expect(performance.now() - started).toBeLessThan(4000);
      // No reader is left on the FIFO either: a non-blocking writer open fails with ENXIO.
      expect(() => closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK))).toThrow(/ENXIO/);
      // Control: plain ffmpeg does open the FIFO, and hangs there until killed.
      const control = await runFfmpeg(["-i", playlist, "-f", "null", "-"], { timeoutMs: 500, maxOutputBytes: 1024 });
      expect(control).toMatchObject({ ok: false, failure: "timeout" });
    });
  }
});
