/**
 * Transcription jobs (issue #28): accept a job (spooled uploads or source-folder paths), answer
 * its state, results and delivery log, cancel and delete it, and keep the runner, the webhook
 * sender and the retention sweeper going. Transport-free: the wiring (src/app/jobs.ts) builds one
 * per process with its runner and hands it to the REST door (./http/), which parses the request
 * and calls this.
 *
 * Acceptance is durable before it is answered: uploads are moved from the upload staging folder
 * into `<data_dir>/jobs/<job id>/` and the job's rows committed, then 202. A crash in between
 * leaves a folder without a job, which the sweeper removes.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../../log/logger.ts";
import { AppError, Detail } from "../../errors/taxonomy.ts";
import { renderTranscript, type RenderedTranscript } from "../../transcripts/formats.ts";
import type { Transcript, TranscriptFormat } from "../types.ts";
import { newJobId } from "./ids.ts";
import type { JobView } from "./schema.ts";
import { JobStore, type NewFile } from "./store.ts";
import type { DeliveryRow, JobOptions, JobRow, JobStatus } from "./types.ts";
import { jobEndDelivery } from "./webhooks/events.ts";
import { WebhookSender } from "../../webhooks/sender.ts";
import { webhookUrlProblem } from "../../webhooks/targets.ts";

/** What runs a process's job files (the wiring builds one: src/app/jobs.ts). */
export interface FileDispatcher {
  /** Queued files may be waiting: claim them while slots are free. */
  wake(): void;
  /** Stops the running files of `jobId` (cancel, delete). */
  abortJob(jobId: string): void;
  /** Stops claiming new files; running ones finish. */
  quiesce(): void;
  /** Stops claiming; running files go back to the queue (killed after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

/** What a jobs service gives the runner it builds. */
export interface DispatcherDeps {
  readonly store: JobStore;
  /** Webhook deliveries were queued. */
  readonly onDeliveries: () => void;
}

/** The settings jobs run by (the `jobs` section, resolved). */
export interface JobsSettings {
  readonly dataDir: string;
  readonly box: string;
  readonly sourceDirs: readonly string[];
  readonly callbackHosts: readonly string[];
  readonly webhookSecret: string;
  readonly retentionDays: number;
  readonly maxFiles: number;
  readonly webhookRetryMs: number;
  readonly webhookRetryHours: number;
  readonly inlineChars: number;
}

/** Who asks: a key sees its own jobs, an admin key every job. */
export interface JobCaller {
  readonly keyId: string;
  readonly admin: boolean;
}

const SWEEP_EVERY_MS = 3_600_000;
const seconds = (ms: number) => Math.floor(ms / 1000);

/** The jobs of one process. */
export class JobsService {
  readonly store: JobStore;
  readonly runner: FileDispatcher;
  readonly webhooks: WebhookSender<ReturnType<JobStore["dueDeliveries"]>[number]>;
  private sweepTimer: ReturnType<typeof setInterval> | undefined;
  private readonly spoolRoot: string;

  constructor(
    readonly settings: JobsSettings,
    runner: (deps: DispatcherDeps) => FileDispatcher,
    private readonly log: Logger,
    onWebhook?: (delivered: boolean) => void,
  ) {
    this.store = new JobStore(settings.dataDir);
    this.spoolRoot = join(settings.dataDir, "jobs");
    mkdirSync(this.spoolRoot, { recursive: true, mode: 0o700 });
    this.webhooks = new WebhookSender(this.store, {
      secret: settings.webhookSecret,
      retryMs: settings.webhookRetryMs,
      retryHours: settings.webhookRetryHours,
      log,
      onAttempt: onWebhook,
      logFields: (delivery) => ({ job: delivery.job_id }),
    });
    this.runner = runner({
      store: this.store,
      onDeliveries: () => this.webhooks.wake(),
    });
  }

  /** Requeues files a crash interrupted, sweeps, and starts the runner and the webhook sender. */
  start(): void {
    const requeued = this.store.requeueInterrupted();
    if (requeued > 0) this.log.warn("requeued job files interrupted by a restart", { count: requeued });
    this.sweep();
    this.sweepTimer = setInterval(() => this.sweep(), SWEEP_EVERY_MS);
    this.sweepTimer.unref?.();
    this.runner.wake();
    this.webhooks.wake();
  }

  /**
   * Shutdown began: no new file is claimed and the timers stop; files already running finish
   * inside the drain. The store stays open for the requests still served until the ports close.
   */
  quiesce(): void {
    clearInterval(this.sweepTimer);
    this.runner.quiesce();
    void this.webhooks.stop();
  }

  /**
   * Stops the runner (running files go back to the queue; its worker is killed after `graceMs`)
   * and the sender, then closes the store.
   */
  async stop(graceMs?: number): Promise<void> {
    clearInterval(this.sweepTimer);
    await this.runner.stop(graceMs);
    await this.webhooks.stop();
    this.store.close();
  }

  /** The job's webhook URL (`callback_url` on the wire), or null; 422 naming `field` when it may not receive webhooks. */
  webhookUrl(url: string | undefined, field: string): string | null {
    if (url === undefined || url.trim() === "") return null;
    const problem =
      this.settings.webhookSecret.length < 32
        ? "Callbacks need jobs.webhook_secret (at least 32 characters)"
        : webhookUrlProblem(url, this.settings.callbackHosts);
    if (problem !== undefined)
      throw new AppError("validation", Detail.validationFailed, { fields: [{ field, message: problem }] });
    return url;
  }

  /** 413 when a job would hold more files than `jobs.max_files`. */
  tooMany(count: number): AppError | undefined {
    const max = this.settings.maxFiles;
    return count > max
      ? new AppError("payload_too_large", `A job may hold at most ${max.toLocaleString("en-US")} files`)
      : undefined;
  }

  /**
   * Accepts a job. Uploaded files (`spooled`) are moved into the job's folder first; on any
   * failure nothing of the job remains.
   */
  create(caller: JobCaller, options: JobOptions, callbackUrl: string | null, files: readonly NewFile[]): JobView {
    const tooMany = this.tooMany(files.length);
    if (tooMany) throw tooMany;
    const id = newJobId(this.settings.box);
    const dir = join(this.spoolRoot, id);
    try {
      const placed = files.map((file, index) => {
        if (!file.spooled) return file;
        if (index === 0 || !existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
        const target = join(dir, `${index}${file.path.slice(file.path.lastIndexOf("."))}`);
        renameSync(file.path, target);
        return { ...file, path: target };
      });
      this.store.createJob({ id, keyId: caller.keyId, options, callbackUrl }, placed);
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    const accepted = this.view(this.store.job(id)!);
    this.runner.wake();
    return accepted;
  }

  /** The job, if `caller` may see it (404 otherwise: another key's job does not exist for it). */
  job(caller: JobCaller, id: string): JobRow {
    const job = this.store.job(id);
    if (job === undefined || (!caller.admin && job.key_id !== caller.keyId))
      throw new AppError("not_found", "Job not found");
    return job;
  }

  /** The job as GET answers it. */
  view(job: JobRow, withFiles = true): JobView {
    const files = withFiles
      ? this.store.files(job.id).map((f) => ({
          id: f.id,
          name: f.name,
          status: f.status,
          ...(f.error !== null ? { error: f.error } : {}),
        }))
      : undefined;
    return {
      id: job.id,
      status: job.status,
      counts: this.store.counts(job.id),
      ...(files ? { files } : {}),
      created_at: seconds(job.created_at),
      ...(job.completed_at !== null ? { completed_at: seconds(job.completed_at) } : {}),
      ...(job.callback_url !== null ? { callback_url: job.callback_url } : {}),
    } as JobView;
  }

  /** A page of the caller's jobs, newest first. */
  list(caller: JobCaller, filter: { status?: JobStatus; after?: string; limit: number }) {
    const rows = this.store.list({
      ...filter,
      limit: filter.limit + 1,
      ...(caller.admin ? {} : { keyId: caller.keyId }),
    });
    const page = rows.slice(0, filter.limit);
    return {
      object: "list" as const,
      data: page.map((job) => this.view(job, false)),
      has_more: rows.length > filter.limit,
      last_id: page.at(-1)?.id ?? null,
    };
  }

  /** A file's result, rendered as the synchronous transcription of that file answers it. */
  result(
    caller: JobCaller,
    jobId: string,
    fileId: string,
    format?: TranscriptFormat,
  ): RenderedTranscript & { model?: string } {
    const job = this.job(caller, jobId);
    const file = this.store.file(job.id, fileId);
    if (file === undefined) throw new AppError("not_found", "File not found");
    // A failed file answers what its synchronous transcription answered: 400 with the same detail.
    if (file.status === "failed") throw new AppError("bad_request", file.error ?? "The file failed");
    if (file.status !== "completed" || file.result === null)
      throw new AppError("not_found", `The file has no result (it is ${file.status})`);
    const options = JSON.parse(job.options) as JobOptions;
    const transcript = JSON.parse(file.result) as Transcript;
    const rendered = renderTranscript(transcript, format ?? options.response_format, {
      granularities: options.granularities,
      ...(options.speakers !== undefined ? { speakers: options.speakers } : {}),
    });
    return { ...rendered, ...(transcript.model !== undefined ? { model: transcript.model } : {}) };
  }

  /** Cancels the job's unfinished files; its spooled audio is removed. */
  cancel(caller: JobCaller, id: string): JobView {
    const job = this.job(caller, id);
    if (this.store.cancel(job.id, jobEndDelivery)) {
      this.runner.abortJob(job.id);
      this.webhooks.wake();
      for (const file of this.store.files(job.id))
        if (file.spooled === 1 && file.status === "cancelled") rmSync(file.path, { force: true });
    }
    return this.view(this.store.job(job.id)!);
  }

  /** Deletes the job, its results, deliveries and spooled audio. */
  delete(caller: JobCaller, id: string): void {
    const job = this.job(caller, id);
    this.store.cancel(job.id);
    this.runner.abortJob(job.id);
    this.store.delete(job.id);
    rmSync(join(this.spoolRoot, job.id), { recursive: true, force: true });
  }

  /** The job's webhook delivery log. */
  deliveries(caller: JobCaller, id: string) {
    const job = this.job(caller, id);
    const view = (d: DeliveryRow) => ({
      id: d.id,
      event: d.event,
      status: d.status,
      attempts: d.attempts,
      ...(d.last_error !== null ? { last_error: d.last_error } : {}),
      created_at: seconds(d.created_at),
      ...(d.delivered_at !== null ? { delivered_at: seconds(d.delivered_at) } : {}),
    });
    return { object: "list" as const, data: this.store.deliveries(job.id).map(view) };
  }

  /**
   * Retention and leftovers: jobs finished more than `jobs.retention_days` ago, folders without a
   * job (a crash between spooling and committing), spooled audio of files already ended.
   */
  sweep(): void {
    const before = Date.now() - this.settings.retentionDays * 86_400_000;
    const expired = this.store.expired(before);
    for (const id of expired) {
      this.store.delete(id);
      rmSync(join(this.spoolRoot, id), { recursive: true, force: true });
    }
    for (const name of readdirSync(this.spoolRoot))
      if (this.store.job(name) === undefined) rmSync(join(this.spoolRoot, name), { recursive: true, force: true });
    const ended = this.store.db
      .query("SELECT path FROM job_files WHERE spooled = 1 AND status IN ('completed', 'failed', 'cancelled')")
      .all() as Array<{ path: string }>;
    for (const { path } of ended) if (existsSync(path)) rmSync(path, { force: true });
    if (expired.length > 0) this.log.info("swept expired jobs", { count: expired.length });
  }
}
