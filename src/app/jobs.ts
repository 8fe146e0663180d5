/**
 * Transcription jobs wired into a running service (docs/jobs.md): the process's one
 * {@link JobsService} over `<data_dir>/jobs.db`, with the runner that starts the jobs worker
 * process (this executable, `sawt __jobs-worker`: ./jobs-worker.ts), its metrics, and its place
 * in the service's life: it starts with the REST door that serves it, stops claiming files when
 * the service drains, starts a new worker on reloaded models, and stops with the service.
 *
 * Built when the jobs door is mounted ({@link jobsFor}, ./http-plugins.ts), once per context:
 * the door only routes.
 */
import { phraseStoreOf } from "../asr/boost/store.ts";
import { JobsService } from "../asr/jobs/service.ts";
import { boxId } from "../asr/jobs/ids.ts";
import { WorkerDispatcher, type WorkerHandle } from "../asr/jobs/worker/dispatcher.ts";
import { JOBS_WORKER_COMMAND, type FromWorker, type ToWorker, workerSlots } from "../asr/jobs/worker/protocol.ts";
import { selfCommand } from "../serving/self-command.ts";
import type { AppContext } from "./context.ts";

const services = new WeakMap<AppContext, JobsService>();

/** The jobs service of the process running `ctx`: built, started and tied to its engine on first call. */
export function jobsFor(ctx: AppContext): JobsService {
  const built = services.get(ctx);
  if (built) return built;
  const jobs = ctx.config.jobs;
  const log = ctx.log.child({ component: "jobs" });
  let runner: WorkerDispatcher | undefined;
  const service = new JobsService(
    {
      dataDir: ctx.config.paths.data_dir,
      box: boxId(jobs.box_id),
      sourceDirs: jobs.source_dirs,
      callbackHosts: jobs.callback_hosts,
      webhookSecret: jobs.webhook_secret,
      retentionDays: jobs.retention_days,
      maxFiles: jobs.max_files,
      webhookRetryMs: jobs.webhook_retry_ms,
      webhookRetryHours: jobs.webhook_retry_hours,
      inlineChars: jobs.webhook_inline_chars,
    },
    (deps) =>
      (runner = new WorkerDispatcher({
        store: deps.store,
        spawn: spawnWorker,
        config: ctx.config,
        slots: workerSlots(ctx.config),
        pauseFor: [ctx.admission.asr, ctx.admission.tts],
        inlineChars: jobs.webhook_inline_chars,
        keyPhrases: (keyId) => phraseStoreOf(ctx.db).list(keyId),
        log,
        onFile: (outcome, seconds) => ctx.metrics.observeJobFile(outcome, seconds),
        onDeliveries: deps.onDeliveries,
      })),
    log,
    (delivered) => ctx.metrics.observeWebhook(delivered),
  );
  services.set(ctx, service);
  ctx.metrics.watchJobFiles(() => service.store.totals().files);
  service.start();
  followEngine(ctx, service, () => runner);
  return service;
}

/**
 * Ties the jobs to the service's ASR engine: draining stops claiming, and models reloaded start a
 * new worker on them. The first generation (start-up) is not a reload: a worker started before it
 * reads the same packs, so it is not stopped (stopping it would cost a model load for nothing).
 */
function followEngine(ctx: AppContext, service: JobsService, runner: () => WorkerDispatcher | undefined): void {
  let generation = ctx.engines.asr.snapshot().details.generation;
  const unsubscribe = ctx.engines.asr.onChange((snapshot) => {
    if (snapshot.status === "draining") {
      unsubscribe();
      service.quiesce();
      return;
    }
    const now = snapshot.details.generation;
    if (snapshot.status !== "ready" || now === undefined || now === generation) return;
    const reloaded = generation !== undefined;
    generation = now;
    if (reloaded) void runner()?.restart();
  });
}

/**
 * Stops the process's jobs, if they were started: the worker is asked to stop (its running files
 * go back to the queue, no fault of theirs) and killed after `graceMs`, then jobs.db is closed.
 */
export async function stopJobs(ctx: AppContext, graceMs: number): Promise<void> {
  const service = services.get(ctx);
  if (!service) return;
  services.delete(ctx);
  await service.stop(graceMs);
}

/** Starts the jobs worker process: this executable, with an IPC channel, logging where we log. */
function spawnWorker(onMessage: (message: FromWorker) => void): WorkerHandle {
  const child = Bun.spawn(selfCommand([JOBS_WORKER_COMMAND]), {
    stdio: ["ignore", "inherit", "inherit"],
    serialization: "json",
    ipc: (message) => onMessage(message as FromWorker),
  });
  // Should this process exit before the worker could ask the kernel to end it with us (or while
  // it is paused), it must not outlive us.
  const endWorker = () => child.kill("SIGKILL");
  process.on("exit", endWorker);
  void child.exited.then(() => process.off("exit", endWorker));
  return {
    send: (message: ToWorker) => {
      // A worker that just ended has no channel; its exit handler takes over.
      if (!child.killed && child.exitCode === null) child.send(message);
    },
    kill: (signal) => child.kill(signal),
    exited: child.exited,
  };
}
