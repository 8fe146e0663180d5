import { afterEach, describe, expect, test } from "bun:test";
import { AppError } from "../errors/taxonomy.ts";
import {
  ffmpegConcurrency,
  FfmpegError,
  ffmpegVersion,
  resolveFfmpegBinary,
  resolveFfprobeBinary,
  runFfmpeg,
  setFfmpegConcurrency,
  streamFfmpeg,
} from "./ffmpeg.ts";
import { sanitizeReason } from "./process.ts";

const SINE_FOREVER = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=8000"];
const savedBin = process.env.FFMPEG_BIN;

afterEach(() => {
  if (savedBin === undefined) delete process.env.FFMPEG_BIN;
  else process.env.FFMPEG_BIN = savedBin;
  setFfmpegConcurrency(2);
});

describe("binary resolution", () => {
  test("does prefer FFMPEG_BIN and FFPROBE_BIN when they are set", () => {
    expect(resolveFfmpegBinary({ FFMPEG_BIN: "/opt/ff/ffmpeg" })).toBe("/opt/ff/ffmpeg");
    expect(resolveFfprobeBinary({ FFPROBE_BIN: "/opt/ff/ffprobe" })).toBe("/opt/ff/ffprobe");
  });

  test("does fall back to the PATH binaries when no override is set", () => {
    // ffmpeg-static's download never runs here, so its file is absent and PATH wins.
    expect(resolveFfmpegBinary({})).toBe(Bun.which("ffmpeg") ?? "ffmpeg");
    expect(resolveFfprobeBinary({})).toBe(Bun.which("ffprobe") ?? "ffprobe");
  });
});

describe("runFfmpeg", () => {
  test("does pipe stdin through to stdout when given bytes", async () => {
    const input = new Uint8Array(64_000).map((_, i) => (i * 7) & 255);
    const result = await runFfmpeg(
      ["-f", "s16le", "-ar", "8000", "-ac", "1", "-i", "pipe:0", "-f", "s16le", "pipe:1"],
      {
        stdin: input,
        timeoutMs: 10_000,
        maxOutputBytes: 1 << 20,
      },
    );
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.stdout).toEqual(input);
  });

  test("does kill the process when it runs past the timeout", async () => {
    const started = performance.now();
    const result = await runFfmpeg([...SINE_FOREVER, "-f", "null", "-"], { timeoutMs: 300, maxOutputBytes: 1024 });
    expect(result).toMatchObject({ ok: false, failure: "timeout" });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(ffmpegConcurrency().active).toBe(0);
  });

  test("does kill the process when its output exceeds the bound", async () => {
    const result = await runFfmpeg([...SINE_FOREVER, "-f", "s16le", "pipe:1"], {
      timeoutMs: 10_000,
      maxOutputBytes: 100_000,
    });
    expect(result).toMatchObject({ ok: false, failure: "output_limit" });
  });

  test("does report a sanitized reason without the path when the input is missing", async () => {
    const result = await runFfmpeg(["-i", "file:/nonexistent/secret-name.wav", "-f", "null", "-"], {
      timeoutMs: 10_000,
      maxOutputBytes: 1024,
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.failure).toBe("exit");
      expect(result.reason).toBe("No such file or directory");
    }
  });

  test("does classify a missing stream when the mapped stream does not exist", async () => {
    const result = await runFfmpeg(["-f", "lavfi", "-i", "testsrc=duration=0.1", "-map", "0:a:0", "-f", "null", "-"], {
      timeoutMs: 10_000,
      maxOutputBytes: 1024,
    });
    expect(result).toMatchObject({ ok: false, failure: "no_stream" });
  });

  test("does report spawn when the binary cannot be started", async () => {
    process.env.FFMPEG_BIN = "/nonexistent/ffmpeg";
    const result = await runFfmpeg(["-version"], { timeoutMs: 1000, maxOutputBytes: 1024 });
    expect(result).toMatchObject({ ok: false, failure: "spawn" });
    expect(ffmpegConcurrency().active).toBe(0);
  });

  test("does queue runs beyond the concurrency limit when many start at once", async () => {
    setFfmpegConcurrency(1);
    const runs = [0, 1, 2].map(() =>
      runFfmpeg(["-f", "lavfi", "-i", "anullsrc=duration=0.05", "-f", "null", "-"], {
        timeoutMs: 10_000,
        maxOutputBytes: 1024,
      }),
    );
    await Bun.sleep(0);
    expect(ffmpegConcurrency()).toMatchObject({ max: 1, active: 1, waiting: 2 });
    const results = await Promise.all(runs);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(ffmpegConcurrency()).toMatchObject({ active: 0, waiting: 0 });
  });
});

describe("streamFfmpeg", () => {
  test("does kill ffmpeg and free its slot when the reader cancels", async () => {
    const stream = streamFfmpeg([...SINE_FOREVER, "-f", "s16le", "pipe:1"], {
      timeoutMs: 10_000,
      maxOutputBytes: 1 << 30,
    });
    const reader = stream.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    expect(ffmpegConcurrency().active).toBe(1);
    await reader.cancel();
    expect(ffmpegConcurrency().active).toBe(0);
  });

  test("does leave the queue when cancelled while waiting for a slot", async () => {
    setFfmpegConcurrency(1);
    const busy = streamFfmpeg([...SINE_FOREVER, "-f", "s16le", "pipe:1"], {
      timeoutMs: 10_000,
      maxOutputBytes: 1 << 30,
    });
    const busyReader = busy.getReader();
    await busyReader.read();
    const queued = streamFfmpeg([...SINE_FOREVER, "-f", "s16le", "pipe:1"], {
      timeoutMs: 10_000,
      maxOutputBytes: 1 << 30,
    });
    const queuedReader = queued.getReader();
    const pending = queuedReader.read().catch(() => undefined);
    await Bun.sleep(0);
    expect(ffmpegConcurrency().waiting).toBe(1);
    await queuedReader.cancel();
    await pending;
    expect(ffmpegConcurrency().waiting).toBe(0);
    await busyReader.cancel();
    expect(ffmpegConcurrency().active).toBe(0);
  });

  test("does error with the producer's own error when the stdin source throws", async () => {
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield new Uint8Array(3200);
      throw new AppError("unavailable", "TTS engine not initialized");
    }
    const stream = streamFfmpeg(["-f", "s16le", "-ar", "8000", "-ac", "1", "-i", "pipe:0", "-f", "s16le", "pipe:1"], {
      stdin: failing(),
      timeoutMs: 10_000,
      maxOutputBytes: 1 << 20,
    });
    const error = await (async () => {
      try {
        for await (const _ of stream) void _;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).detail).toBe("TTS engine not initialized");
  });

  test("does error with an FfmpegError when ffmpeg fails", async () => {
    const stream = streamFfmpeg(["-f", "nonexistent_format", "-i", "pipe:0", "pipe:1"], {
      stdin: new Uint8Array(10),
      timeoutMs: 10_000,
      maxOutputBytes: 1024,
    });
    await expect(new Response(stream).arrayBuffer()).rejects.toBeInstanceOf(FfmpegError);
  });
});

describe("ffmpegVersion", () => {
  test("does report the version when ffmpeg is installed", async () => {
    const version = await ffmpegVersion();
    expect(version.ok).toBe(true);
    if (version.ok) expect(version.version).toMatch(/^\S+$/);
  });

  test("does report not found when the binary is missing", async () => {
    expect(await ffmpegVersion("/nonexistent/ffmpeg")).toMatchObject({ ok: false, reason: "not found" });
  });
});

describe("sanitizeReason", () => {
  test("does drop paths, demuxer context and quoted lists when given ffmpeg stderr", () => {
    expect(sanitizeReason("[mov,mp4,m4a @ 0x55d0c0] moov atom not found\nfile:/tmp/up/x y.mp4: Invalid data\n")).toBe(
      "moov atom not found",
    );
    expect(sanitizeReason("file:/tmp/my upload.wav: Invalid data found when processing input")).toBe(
      "Invalid data found when processing input",
    );
    expect(sanitizeReason("Format not on whitelist 'wav,mp3,mov,mpeg,mpegts,ogg,matroska,flac'")).toBe(
      "Format not on whitelist '...'",
    );
    expect(sanitizeReason("Error opening /srv/data/a.wav now")).toBe("Error opening now");
    expect(sanitizeReason("")).toBe("");
  });
});
