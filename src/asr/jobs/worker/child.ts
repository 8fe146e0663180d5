/**
 * The jobs worker process's side (see ./dispatcher.ts): transcribes the files the serving
 * process sends, over this process's own ASR engine, and answers each with its outcome. It leaves
 * when it has had nothing to do for `jobs.worker_idle_ms`, when told to stop (or sent SIGTERM or
 * SIGINT, as a whole process group is on Ctrl-C), or at once when the serving process is gone
 * (files it was running are then queued again by the next start; the claim token keeps a late
 * answer from being written).
 *
 * Once it begins to leave, nothing it answers is a file's fault: running files are aborted before
 * its engine is released (a session released under a file is the worker ending, not the file),
 * and a file sent meanwhile is answered `aborted` without being started.
 */
import type { AppContext } from "../../../core/context.ts";
import { readyService } from "../../../edge/readiness.ts";
import { sentPhraseLists } from "../../policy.ts";
import { formattingRequest } from "../../format/request.ts";
import type { FileOutcome, FromWorker, JobFile, ToWorker } from "./protocol.ts";
import { transcribeJobFile, type TranscribeDeps } from "./transcribe.ts";

/** The IPC channel to the serving process. */
export interface WorkerChannel {
  send(message: FromWorker): void;
  onMessage(listener: (message: ToWorker) => void): void;
  /** The serving process is gone (it exited or was killed). */
  onDisconnect(listener: () => void): void;
}

/** How often the worker checks whether it has been idle long enough. */
const CHECK_MS = 250;

/**
 * Transcribes files until idle, told to stop, or disconnected; resolves with the process's exit
 * code once every running file has answered. `ctx` is this process's context with its ASR engine
 * serving; the caller releases the engine after.
 */
export async function serveJobFiles(ctx: AppContext, channel: WorkerChannel): Promise<number> {
  const deps: TranscribeDeps = {
    service: () => readyService(ctx, "asr"),
    sourceDirs: ctx.config.jobs.source_dirs,
    // What the job asked (checked when it was submitted); the engine adds the server's floor.
    formatting: (fields) => formattingRequest(fields, "redact"),
  };
  const running = new Map<JobFile, { abort: AbortController; done: Promise<void> }>();
  const done = Promise.withResolvers<number>();
  let ending = false;
  let idleSince = performance.now();

  const answer = (file: JobFile, outcome: FileOutcome) =>
    channel.send({ type: "done", jobId: file.jobId, idx: file.idx, attempts: file.attempts, outcome });

  /** Leaves: every running file is aborted (answered `aborted`), then the exit code settles. */
  const end = (why: string) => {
    if (ending) return;
    ending = true;
    const left = [...running.values()];
    for (const { abort } of left) abort.abort(new Error(why));
    void Promise.all(left.map((r) => r.done)).then(() => done.resolve(0));
  };

  const check = setInterval(() => {
    if (running.size === 0 && performance.now() - idleSince >= ctx.config.jobs.worker_idle_ms) end("idle");
  }, CHECK_MS);

  const run = (file: JobFile) => {
    // Leaving already: its engine may be closing, so the file is not even started.
    if (ending) return answer(file, { status: "aborted" });
    // The key's phrase list as the service sent it, where this process's engine reads it.
    sentPhraseLists(ctx).set(file.keyId, file.keyPhrases);
    const abort = new AbortController();
    const ended = transcribeJobFile(file, deps, abort.signal).then((outcome) => {
      running.delete(file);
      idleSince = performance.now();
      answer(file, outcome);
    });
    running.set(file, { abort, done: ended });
  };

  channel.onDisconnect(() => end("the service is gone"));
  channel.onMessage((message) => {
    switch (message.type) {
      case "run":
        run(message.file);
        return;
      case "abort":
        for (const [file, { abort }] of running) if (file.jobId === message.jobId) abort.abort(new Error("cancelled"));
        return;
      case "stop":
        end("stopping");
        return;
      case "start":
        return; // answered once, before this loop
    }
  });
  // A signal to the whole process group (Ctrl-C, a unit's stop) is a stop, not a crash: the
  // service must not count it against the files running here. SIGHUP is the service's to handle
  // (a reload starts a new worker), so it does not end this one.
  const stopOnSignal = () => end("signalled");
  const ignore = () => {};
  process.on("SIGTERM", stopOnSignal);
  process.on("SIGINT", stopOnSignal);
  process.on("SIGHUP", ignore);
  const code = await done.promise;
  clearInterval(check);
  return code;
}
