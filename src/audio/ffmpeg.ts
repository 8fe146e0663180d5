/**
 * The only way Sawt starts ffmpeg. Every run gets the same hardened prefix, a minimal
 * environment, a wall-clock limit, a bound on its output, and a slot from one process-wide
 * limiter. ffmpeg's stderr never leaves this module raw: callers get a failure class and a short
 * sanitized reason fit for logs (no paths, no user data).
 */
import { concatBytes } from "./concat.ts";
import { existsSync } from "node:fs";
import ffmpegStaticPath from "ffmpeg-static";
import { createLimiter, type Limiter } from "./limiter.ts";
import { type FfmpegFailure, startProcess, type ProcessInput, type RunningProcess } from "./process.ts";

/** Prepended to every ffmpeg command line. `-threads 1` (first input's decoder) keeps one run
 * from fanning out over all cores; the limiter then bounds the total. */
export const HARDENED_ARGS: readonly string[] = ["-nostdin", "-hide_banner", "-loglevel", "error", "-threads", "1"];

/** Default number of concurrent ffmpeg processes. */
export const DEFAULT_FFMPEG_CONCURRENCY = 2;

const limiter: Limiter = createLimiter(DEFAULT_FFMPEG_CONCURRENCY);

/** Sets how many ffmpeg processes may run at once, process-wide (config `audio.ffmpeg_concurrency`). */
export function setFfmpegConcurrency(max: number): void {
  limiter.setMax(max);
}

/** Snapshot of the limiter, for health details and tests. */
export function ffmpegConcurrency(): { max: number; active: number; waiting: number } {
  return { max: limiter.max, active: limiter.active, waiting: limiter.waiting };
}

/**
 * The ffmpeg executable: env `FFMPEG_BIN`, else ffmpeg-static's binary when its file exists (its
 * download step cannot run offline, so usually it does not), else `ffmpeg` from PATH.
 */
export function resolveFfmpegBinary(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.FFMPEG_BIN?.trim();
  if (fromEnv) return fromEnv;
  if (typeof ffmpegStaticPath === "string" && existsSync(ffmpegStaticPath)) return ffmpegStaticPath;
  return Bun.which("ffmpeg") ?? "ffmpeg";
}

/** The ffprobe executable (tests and doctor only): env `FFPROBE_BIN`, else `ffprobe` from PATH. */
export function resolveFfprobeBinary(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.FFPROBE_BIN?.trim();
  if (fromEnv) return fromEnv;
  return Bun.which("ffprobe") ?? "ffprobe";
}

/** Why an ffmpeg run did not succeed (declared beside the process runner that reports it). */
export type { FfmpegFailure } from "./process.ts";

/** Options of one ffmpeg run. */
export interface FfmpegRunOptions {
  /** Bytes fed to `pipe:0`; omitted means stdin is closed. */
  readonly stdin?: ProcessInput;
  /** Wall-clock limit, counted from the moment the process starts (queueing excluded). */
  readonly timeoutMs: number;
  /** The process is killed once its stdout exceeds this many bytes. */
  readonly maxOutputBytes: number;
  /** Kills the run (or leaves the queue) when aborted. */
  readonly signal?: AbortSignal;
}

/** Outcome of {@link runFfmpeg}. */
export type FfmpegResult =
  | { readonly ok: true; readonly stdout: Uint8Array }
  | { readonly ok: false; readonly failure: FfmpegFailure; readonly reason: string; readonly cause?: unknown };

/** Thrown into an ffmpeg output stream when the run fails; its message is already sanitized. */
export class FfmpegError extends Error {
  readonly failure: FfmpegFailure;
  readonly reason: string;

  constructor(failure: FfmpegFailure, reason: string, cause?: unknown) {
    super(`ffmpeg ${failure}: ${reason}`, cause === undefined ? undefined : { cause });
    this.name = "FfmpegError";
    this.failure = failure;
    this.reason = reason;
  }
}

/** Runs ffmpeg with `args` after {@link HARDENED_ARGS} and collects its stdout. Never throws. */
export async function runFfmpeg(args: readonly string[], options: FfmpegRunOptions): Promise<FfmpegResult> {
  let release: (() => void) | undefined;
  try {
    release = await limiter.acquire(options.signal);
  } catch (cause) {
    return { ok: false, failure: "aborted", reason: "aborted while queued", cause };
  }
  try {
    const run = startProcess([resolveFfmpegBinary(), ...HARDENED_ARGS, ...args], options);
    const chunks: Uint8Array[] = [];
    for await (const chunk of run.stdout) chunks.push(chunk);
    const outcome = await run.finished;
    if (outcome.ok) return { ok: true, stdout: concatBytes(chunks) };
    return { ok: false, failure: outcome.failure, reason: outcome.reason, cause: outcome.cause };
  } finally {
    release();
  }
}

/**
 * Runs ffmpeg and exposes its stdout as a stream. Nothing starts until the first read; cancelling
 * the stream kills the process. A failed run errors the stream with an {@link FfmpegError}, or with
 * the stdin producer's own error when that is what failed.
 */
export function streamFfmpeg(args: readonly string[], options: FfmpegRunOptions): ReadableStream<Uint8Array> {
  let started: Promise<Started> | undefined;
  // Lets a cancel that arrives while still queued for a slot leave the queue at once.
  const cancelled = new AbortController();
  const queueSignal = options.signal ? AbortSignal.any([options.signal, cancelled.signal]) : cancelled.signal;
  const start = async (): Promise<Started> => {
    const release = await limiter.acquire(queueSignal);
    const run = startProcess([resolveFfmpegBinary(), ...HARDENED_ARGS, ...args], options);
    return { run, reader: run.stdout[Symbol.asyncIterator](), release };
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      started ??= start();
      const { run, reader, release } = await started;
      const next = await reader.next();
      if (!next.done) {
        controller.enqueue(next.value);
        return;
      }
      const outcome = await run.finished;
      release();
      if (outcome.ok) controller.close();
      else if (outcome.failure === "input") controller.error(outcome.cause);
      else controller.error(new FfmpegError(outcome.failure, outcome.reason, outcome.cause));
    },
    async cancel() {
      cancelled.abort();
      if (started === undefined) return;
      const begun = await started.catch(() => undefined);
      if (begun === undefined) return;
      begun.run.kill();
      await begun.run.finished;
      begun.release();
    },
  });
}

interface Started {
  readonly run: RunningProcess;
  readonly reader: AsyncIterator<Uint8Array>;
  readonly release: () => void;
}

/** What `sawt doctor` reports about ffmpeg. */
export type FfmpegVersion =
  | { readonly ok: true; readonly binary: string; readonly version: string }
  | { readonly ok: false; readonly binary: string; readonly reason: string };

/** Runs `ffmpeg -version` and returns its first line's version, e.g. `5.1.9-0+deb12u1`. */
export async function ffmpegVersion(binary: string = resolveFfmpegBinary()): Promise<FfmpegVersion> {
  const run = startProcess([binary, "-hide_banner", "-version"], { timeoutMs: 5000, maxOutputBytes: 1 << 16 });
  const chunks: Uint8Array[] = [];
  for await (const chunk of run.stdout) chunks.push(chunk);
  const outcome = await run.finished;
  if (!outcome.ok) return { ok: false, binary, reason: outcome.failure === "spawn" ? "not found" : outcome.reason };
  const firstLine = new TextDecoder().decode(concatBytes(chunks)).split("\n", 1)[0] ?? "";
  const match = /version\s+(\S+)/.exec(firstLine);
  return match?.[1]
    ? { ok: true, binary, version: match[1] }
    : { ok: false, binary, reason: "unrecognised -version output" };
}
