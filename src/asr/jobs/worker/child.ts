/**
 * The jobs worker process's side (see ./process-runner.ts): runs queued files with the in-process
 * {@link JobRunner} over this process's own ASR engine, follows the serving process's messages,
 * and leaves when idle, when told to stop, or at once when the serving process is gone (its files
 * then go back to the queue when the service starts again; a claim token keeps a file a lost
 * worker was running from being written twice).
 */
import type { AppContext } from "../../../core/context.ts";
import { readyService } from "../../../edge/readiness.ts";
import { requestFormatting } from "../../format/request.ts";
import { JobRunner } from "../runner.ts";
import { JobStore } from "../store.ts";
import type { FromWorker, ToWorker } from "./protocol.ts";

/** The IPC channel to the serving process. */
export interface WorkerChannel {
  send(message: FromWorker): void;
  onMessage(listener: (message: ToWorker) => void): void;
  /** The serving process is gone (it exited or was killed). */
  onDisconnect(listener: () => void): void;
}

/** How often the worker looks for files no wake reached, and whether it has been idle long enough. */
const CHECK_MS = 250;

/**
 * Runs job files until idle for `jobs.worker_idle_ms`, told to stop, or disconnected; resolves
 * with the process's exit code. `ctx` is this process's context with its ASR engine serving.
 */
export async function serveJobFiles(ctx: AppContext, channel: WorkerChannel): Promise<number> {
  const idleMs = ctx.config.jobs.worker_idle_ms;
  const log = ctx.log.child({ component: "jobs-worker" });
  const store = new JobStore(ctx.config.paths.data_dir);
  const runner = new JobRunner(store, {
    service: () => readyService(ctx, "asr"),
    slots: () => ctx.admission.asr.batchSlots,
    sourceDirs: ctx.config.jobs.source_dirs,
    inlineChars: ctx.config.jobs.webhook_inline_chars,
    log,
    onFile: (status, audioSeconds) => channel.send({ type: "file", status, audioSeconds }),
    onDeliveries: () => channel.send({ type: "deliveries" }),
    // Every door's written forms and redaction, as the job asked, with the server's floor.
    formatting: (fields) => requestFormatting(ctx, fields, "asr.redact"),
  });
  const done = Promise.withResolvers<number>();
  let quiescing = false;
  let idleSince = performance.now();
  const check = setInterval(() => {
    if (runner.running > 0) idleSince = performance.now();
    else if (quiescing) done.resolve(0);
    else if (store.hasClaimable()) {
      // Files wait that no wake reached (a claim that met a busy engine retries here too).
      idleSince = performance.now();
      runner.wake();
    } else if (performance.now() - idleSince >= idleMs) done.resolve(0);
  }, CHECK_MS);
  channel.onDisconnect(() => done.resolve(0));
  channel.onMessage((message) => {
    switch (message.type) {
      case "wake":
        idleSince = performance.now();
        runner.wake();
        return;
      case "abort":
        runner.abortJob(message.jobId);
        return;
      case "load":
        ctx.admission.asr.setExternalLoad(message.load);
        return;
      case "quiesce":
        quiescing = true;
        runner.quiesce();
        return;
      case "stop":
        void runner.stop().then(() => done.resolve(0));
        return;
    }
  });
  runner.wake();
  const code = await done.promise;
  clearInterval(check);
  log.debug("jobs worker leaving", { running: runner.running });
  store.close();
  return code;
}
