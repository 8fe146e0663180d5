/**
 * The jobs worker process's side (see ./process-runner.ts): transcribes the files the serving
 * process sends, over this process's own ASR engine, and answers each with its outcome. It leaves
 * when it has had nothing to do for `jobs.worker_idle_ms`, when told to stop, or at once when the
 * serving process is gone (files it was running are then queued again by the next start; the
 * claim token keeps a late answer from being written).
 */
import type { AppContext } from "../../../core/context.ts";
import { readyService } from "../../../edge/readiness.ts";
import { requestFormatting } from "../../format/request.ts";
import type { FromWorker, JobFile, ToWorker } from "./protocol.ts";
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
 * code. `ctx` is this process's context with its ASR engine serving.
 */
export async function serveJobFiles(ctx: AppContext, channel: WorkerChannel): Promise<number> {
  const deps: TranscribeDeps = {
    service: () => readyService(ctx, "asr"),
    sourceDirs: ctx.config.jobs.source_dirs,
    // Every door's written forms and redaction, as the job asked, with the server's floor.
    formatting: (fields) => requestFormatting(ctx, fields, "asr.redact"),
  };
  const running = new Map<JobFile, { abort: AbortController; done: Promise<void> }>();
  const done = Promise.withResolvers<number>();
  let idleSince = performance.now();
  const check = setInterval(() => {
    if (running.size === 0 && performance.now() - idleSince >= ctx.config.jobs.worker_idle_ms) done.resolve(0);
  }, CHECK_MS);

  const run = (file: JobFile) => {
    const abort = new AbortController();
    const ended = transcribeJobFile(file, deps, abort.signal).then((outcome) => {
      running.delete(file);
      idleSince = performance.now();
      channel.send({ type: "done", jobId: file.jobId, idx: file.idx, attempts: file.attempts, outcome });
    });
    running.set(file, { abort, done: ended });
  };

  channel.onDisconnect(() => done.resolve(0));
  channel.onMessage((message) => {
    switch (message.type) {
      case "run":
        run(message.file);
        return;
      case "abort":
        for (const [file, { abort }] of running) if (file.jobId === message.jobId) abort.abort(new Error("cancelled"));
        return;
      case "stop": {
        // Each running file answers `aborted` (the service queues it again), then the worker exits.
        const ending = [...running.values()];
        for (const { abort } of ending) abort.abort(new Error("stopping"));
        void Promise.all(ending.map((r) => r.done)).then(() => done.resolve(0));
        return;
      }
      case "start":
        return; // answered once, before this loop
    }
  });
  const code = await done.promise;
  clearInterval(check);
  return code;
}
