/**
 * One bounded child process: stdin fed from bytes or an async source, stdout exposed as a stream
 * with a byte cap, stderr kept (first 8 KiB) only to classify the failure, SIGKILL on timeout,
 * overflow, abort or cancel. Used by ffmpeg.ts; knows nothing about audio.
 */

/** Why an ffmpeg run did not succeed (the process runner reports these; ffmpeg.ts re-exports it). */
export type FfmpegFailure =
  | "spawn" // the binary could not be started
  | "timeout" // killed after `timeoutMs`
  | "output_limit" // killed after writing more than `maxOutputBytes`
  | "aborted" // the caller's signal fired
  | "input" // the stdin producer threw
  | "no_stream" // the input has no stream of the kind mapped
  | "exit"; // any other non-zero exit

/** What can be fed to a child's stdin. */
export type ProcessInput = Uint8Array | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/** Limits and input of one process. */
export interface ProcessOptions {
  readonly stdin?: ProcessInput;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly signal?: AbortSignal;
}

/** How a process ended. */
export type ProcessOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly failure: FfmpegFailure; readonly reason: string; readonly cause?: unknown };

/** A started process. `stdout` must be read to the end (or the process killed) for `finished` to settle. */
export interface RunningProcess {
  readonly stdout: ReadableStream<Uint8Array>;
  readonly finished: Promise<ProcessOutcome>;
  kill(): void;
}

const STDERR_KEEP = 8192;

let processesStarted = 0;

/**
 * How many child processes this module has started since the process began. Every ffmpeg run
 * goes through here, so tests read it before and after a request to show none was started.
 */
export function processesStartedCount(): number {
  return processesStarted;
}

/** Starts `cmd`; never throws (a binary that cannot start yields failure `spawn`). */
export function startProcess(cmd: readonly string[], options: ProcessOptions): RunningProcess {
  let proc: ReturnType<typeof spawn>;
  try {
    proc = spawn(cmd, options.stdin !== undefined);
  } catch (cause) {
    return {
      stdout: new ReadableStream({ start: (controller) => controller.close() }),
      finished: Promise.resolve({ ok: false, failure: "spawn", reason: "could not start process", cause }),
      kill: () => {},
    };
  }
  let killedFor: FfmpegFailure | undefined;
  let inputError: unknown;
  const kill = (why: FfmpegFailure): void => {
    killedFor ??= why;
    proc.kill("SIGKILL");
  };
  const timer = setTimeout(() => kill("timeout"), options.timeoutMs);
  const onAbort = (): void => kill("aborted");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();

  const stdinDone =
    options.stdin !== undefined && proc.stdin
      ? pump(
          proc.stdin,
          options.stdin,
          proc.exited.then(() => {}),
        ).then((error) => {
          if (error !== undefined) {
            inputError = error;
            kill("input");
          }
        })
      : Promise.resolve();
  const stderrText = collectHead(proc.stderr, STDERR_KEEP);

  let sent = 0;
  const source = proc.stdout.getReader();
  const stdout = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await source.read();
      if (next.done) return controller.close();
      sent += next.value.byteLength;
      if (sent > options.maxOutputBytes) {
        kill("output_limit");
        source.cancel().catch(() => {});
        return controller.close();
      }
      controller.enqueue(next.value);
    },
    cancel() {
      kill("aborted");
      return source.cancel().catch(() => {});
    },
  });

  const finished = (async (): Promise<ProcessOutcome> => {
    const exitCode = await proc.exited;
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    const [stderr] = await Promise.all([stderrText, stdinDone]);
    if (killedFor === "input") return { ok: false, failure: "input", reason: "input source failed", cause: inputError };
    if (killedFor !== undefined) return { ok: false, failure: killedFor, reason: KILL_REASONS[killedFor] };
    if (exitCode === 0) return { ok: true };
    const failure = /matches no streams|does not contain any stream/i.test(stderr) ? "no_stream" : "exit";
    return { ok: false, failure, reason: sanitizeReason(stderr) || `exit code ${exitCode}` };
  })();

  return { stdout, finished, kill: () => kill("aborted") };
}

const KILL_REASONS: Record<FfmpegFailure, string> = {
  spawn: "could not start process",
  timeout: "timed out",
  output_limit: "output limit exceeded",
  aborted: "aborted",
  input: "input source failed",
  no_stream: "no stream",
  exit: "failed",
};

function spawn(cmd: readonly string[], withStdin: boolean) {
  processesStarted++;
  // A minimal environment: FFREPORT and friends would make ffmpeg write log files (with paths)
  // behind our back, and nothing else in the parent's environment concerns it.
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", AV_LOG_FORCE_NOCOLOR: "1" };
  if (process.env.LD_LIBRARY_PATH) env.LD_LIBRARY_PATH = process.env.LD_LIBRARY_PATH;
  return Bun.spawn({
    cmd: [...cmd],
    stdin: withStdin ? "pipe" : "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env,
  });
}

/**
 * Writes the source into the child's stdin; returns the source's own error, if it threw. Stops
 * early (and tells the source to finish) once `stopped` settles, so a killed child never leaves
 * this waiting on a producer that has nothing more to say.
 */
async function pump(sink: Bun.FileSink, input: ProcessInput, stopped: Promise<void>): Promise<unknown> {
  const halt: Promise<typeof HALT> = stopped.then(() => HALT);
  let iterator: AsyncIterator<Uint8Array> | undefined;
  try {
    if (input instanceof Uint8Array) {
      await Promise.race([sink.write(input), halt]);
    } else {
      iterator = input[Symbol.asyncIterator]();
      for (;;) {
        const next = await Promise.race([iterator.next(), halt]);
        if (next === HALT || next.done) break;
        if ((await Promise.race([sink.write(next.value), halt])) === HALT) break;
        if ((await Promise.race([sink.flush(), halt])) === HALT) break;
      }
    }
  } catch (error) {
    // A write fails with EPIPE when the child exits early; its exit status tells that story.
    if (isPipeError(error)) return undefined;
    return error;
  } finally {
    iterator?.return?.().catch(() => {});
    try {
      await Promise.race([sink.end(), halt]);
    } catch {
      // already closed by the child
    }
  }
  return undefined;
}

const HALT: unique symbol = Symbol("halt");

function isPipeError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "EPIPE" || code === "ECONNRESET" || code === "ERR_STREAM_DESTROYED";
}

async function collectHead(stream: ReadableStream<Uint8Array>, limit: number): Promise<string> {
  const kept: Uint8Array[] = [];
  let size = 0;
  // Keep draining after the limit so a chatty child never blocks on a full stderr pipe.
  for await (const chunk of stream) {
    if (size < limit) kept.push(chunk.subarray(0, limit - size));
    size += chunk.byteLength;
  }
  return new TextDecoder().decode(Buffer.concat(kept));
}

/**
 * First non-empty stderr line, shortened and stripped of anything path-like: the `url: ` prefix
 * ffmpeg puts before I/O errors, `[demuxer @ 0x…]` context, and every token with a slash.
 */
export function sanitizeReason(stderr: string): string {
  const line =
    stderr
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? "";
  let text = line.replace(/^\[[^\]]*@\s*0x[0-9a-f]+\]\s*/i, "");
  if (/^(file:|pipe:|\/|\.)/i.test(text)) {
    const cut = text.lastIndexOf(": ");
    text = cut >= 0 ? text.slice(cut + 2) : "";
  }
  text = text
    .split(/\s+/)
    .filter((token) => !/[\\/]/.test(token) && !/^(file|pipe):/i.test(token))
    .join(" ");
  // Long quoted lists (our own whitelists echoed back) carry nothing; non-ASCII may be input metadata.
  return text
    .replace(/'[^']{24,}'/g, "'...'")
    .replace(/[^\x20-\x7e]/g, "")
    .slice(0, 120)
    .trim();
}
