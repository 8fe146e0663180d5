/**
 * Runs a process's job files in a worker process of their own (issue #28: a night batch must
 * never slow a live call). The worker is the same executable (`sawt __jobs-worker`) running at
 * background CPU priority: the kernel gives live work its cores first, and the worker's decoding
 * and inference never share the serving process's event loop. While live work runs or waits the
 * worker is paused outright (./live-pause.ts). It runs at most `jobs.max_slots` files at once
 * (`workerSlots`, ./protocol.ts).
 *
 * This side owns the store: it claims files (at most the worker's slots at once), sends each to
 * the worker, and writes the outcome (../outcomes.ts) — result, state and webhooks in one
 * transaction — so the store has one writer and the service never waits on the worker.
 *
 * The worker is started when files are queued and leaves when it has been idle a while (its
 * models are loaded only while there is batch work). A worker this side stops (a reload, the
 * service's shutdown) is sent no more files once asked, and its files go back to the queue with no
 * fault. A worker that dies on its own while the service runs charges each file it was
 * transcribing one fault (the rule is ../outcomes.ts's), and is started again — at once after a
 * clean exit, after a growing pause (up to a minute) after a crash, so a worker that cannot start
 * is reported, not spun.
 */
import type { Hotword } from "../../../core/asr.ts";
import type { Logger } from "../../../log/logger.ts";
import { FileOutcomes, RETRY_MS } from "../outcomes.ts";
import type { FileDispatcher } from "../service.ts";
import type { JobStore } from "../store.ts";
import type { FileRow } from "../types.ts";
import { type LiveGate, LivePause } from "./live-pause.ts";
import { type FromWorker, jobFileOf, type ToWorker } from "./protocol.ts";

/** A running worker process, as the runner needs it. */
export interface WorkerHandle {
  send(message: ToWorker): void;
  /** Sends a signal (SIGSTOP/SIGCONT pause and resume it; SIGKILL ends it). */
  kill(signal?: NodeJS.Signals): void;
  /** Settles with the exit code when the process has ended. */
  readonly exited: Promise<number>;
}

/** What the runner needs from its process. */
export interface WorkerDispatcherOptions {
  readonly store: JobStore;
  /** Starts a worker process whose messages go to `onMessage`. */
  readonly spawn: (onMessage: (message: FromWorker) => void) => WorkerHandle;
  /** The settings the worker runs by (sent in its `start` message). */
  readonly config: unknown;
  /** Files the worker may run at once (`workerSlots` of ./protocol.ts). */
  readonly slots: number;
  /** Gates whose live work pauses the worker outright while any of it runs or waits (ASR, TTS). */
  readonly pauseFor: readonly LiveGate[];
  /** Longest transcript text carried inside a file webhook. */
  readonly inlineChars: number;
  /** A key's phrase list now (sent with each of its files: the worker's engine applies it). */
  readonly keyPhrases: (keyId: string) => readonly Hotword[];
  readonly log: Logger;
  readonly onFile?: (status: "completed" | "failed", audioSeconds: number) => void;
  /** Webhook deliveries were queued. */
  readonly onDeliveries?: () => void;
}

/** How long a worker asked to stop may take before it is killed. */
const STOP_GRACE_MS = 10_000;
/** Pause before restarting a worker that crashed: doubled per crash in a row, at most a minute. */
const CRASH_PAUSE_MS = 1_000;
const MAX_CRASH_PAUSE_MS = 60_000;

const keyOf = (jobId: string, idx: number) => `${jobId}/${idx}`;

/** A started worker and what this side knows of it; gone with the process. */
interface Worker {
  readonly handle: WorkerHandle;
  /** It said `hello`: it has asked the kernel to end it with this process. */
  bonded: boolean;
  /** Its engine serves: files may be sent. */
  ready: boolean;
  /** Asked to stop by this side (or killed after the grace): no file is sent, its end is no crash. */
  stopping: boolean;
}

/** Job files run by a worker process. */
export class WorkerDispatcher implements FileDispatcher {
  private worker: Worker | undefined;
  /** Files sent to the worker and not answered yet, by job id and index. */
  private readonly sent = new Map<string, FileRow>();
  private readonly outcomes: FileOutcomes;
  private readonly pause: LivePause;
  private restartTimer: ReturnType<typeof setTimeout> | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private crashes = 0;
  private claiming = true;

  constructor(private readonly options: WorkerDispatcherOptions) {
    this.outcomes = new FileOutcomes(options);
    // Not before `hello`: a worker stopped before it asked to die with the service could outlive it.
    this.pause = new LivePause(options.pauseFor, () => (this.worker?.bonded ? this.worker.handle : undefined));
  }

  /** Claims queued files for the worker while the worker has free slots; starts a worker if none runs. */
  wake(): void {
    if (!this.claiming) return;
    if (!this.worker) {
      if (this.restartTimer === undefined && this.options.store.hasClaimable()) this.start();
      return;
    }
    if (!this.worker.ready || this.worker.stopping) return;
    while (this.sent.size < this.options.slots) {
      // A file with a fault runs alone: nothing joins it, and it waits for the others to finish.
      if ([...this.sent.values()].some((f) => f.faults > 0)) return;
      const file = this.options.store.claimNext(this.sent.size > 0);
      if (file === undefined) return;
      const job = this.options.store.job(file.job_id);
      if (job === undefined) continue;
      this.sent.set(keyOf(file.job_id, file.idx), file);
      this.worker.handle.send({ type: "run", file: jobFileOf(file, job, this.options.keyPhrases(job.key_id)) });
    }
  }

  abortJob(jobId: string): void {
    this.worker?.handle.send({ type: "abort", jobId });
  }

  /** Stops claiming; files the worker runs finish and are written. */
  quiesce(): void {
    this.claiming = false;
    clearTimeout(this.restartTimer);
    clearTimeout(this.retryTimer);
  }

  /** Asks the worker to stop (its running files go back to the queue); kills it after a grace. */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    this.quiesce();
    this.pause.close();
    await this.stopWorker(graceMs);
  }

  /** Stops the worker and starts a new one (the engine's models changed). */
  async restart(): Promise<void> {
    if (!this.worker) return;
    await this.stopWorker(STOP_GRACE_MS);
    this.wake();
  }

  private async stopWorker(graceMs: number): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    // From now on it is sent nothing, and neither its answers nor its end are a file's fault.
    worker.stopping = true;
    this.pause.resume(); // a stopped worker could not hear it
    const { handle } = worker;
    handle.send({ type: "stop" });
    const ended = await Promise.race([handle.exited.then(() => true), Bun.sleep(graceMs).then(() => false)]);
    if (!ended) {
      this.options.log.warn("jobs worker did not stop in time; killed", { grace_ms: graceMs });
      handle.kill("SIGKILL");
      await handle.exited;
    }
  }

  private start(): void {
    let worker: Worker;
    try {
      const handle = this.options.spawn((message) => this.heard(worker, message));
      worker = { handle, bonded: false, ready: false, stopping: false };
    } catch (error) {
      this.options.log.error("jobs worker could not be started", { error: String(error) });
      this.afterExit(1, true);
      return;
    }
    this.worker = worker;
    void worker.handle.exited.then((code) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.pause.forget();
      // Died on its own: not stopped by this side, and the service is not shutting down.
      this.afterExit(code, code !== 0 && !worker.stopping && this.claiming);
    });
  }

  private heard(worker: Worker, message: FromWorker): void {
    if (this.worker !== worker) return;
    switch (message.type) {
      case "hello":
        worker.bonded = true;
        worker.handle.send({ type: "start", config: this.options.config });
        this.pause.follow(); // live work running now: the new worker waits (its model load too)
        return;
      case "ready":
        this.crashes = 0;
        worker.ready = true;
        this.wake();
        return;
      case "failed":
        this.options.log.error("jobs worker cannot transcribe; queued files wait", { reason: message.reason });
        return;
      case "done": {
        const key = keyOf(message.jobId, message.idx);
        const file = this.sent.get(key);
        if (file === undefined || file.attempts !== message.attempts) return;
        this.sent.delete(key);
        if (this.outcomes.settle(file, message.outcome) === "later") {
          // The worker's engine could not take it now: claimed again after a pause.
          clearTimeout(this.retryTimer);
          this.retryTimer = setTimeout(() => this.wake(), RETRY_MS);
          this.retryTimer.unref?.();
        }
        this.wake();
        return;
      }
    }
  }

  /**
   * The worker ended: the files it was running go back to the queue — each with a fault when it
   * `died` on its own — and a new worker starts if work waits.
   */
  private afterExit(code: number, died: boolean): void {
    const lost = [...this.sent.values()];
    this.sent.clear();
    for (const file of lost) this.outcomes.lost(file, died);
    if (code !== 0) {
      if (died) this.crashes++;
      this.options.log.error("jobs worker exited", { code, files: lost.length, faulted: died });
    }
    if (!this.claiming || !this.options.store.hasClaimable()) return;
    const pause = died ? Math.min(MAX_CRASH_PAUSE_MS, CRASH_PAUSE_MS * 2 ** (this.crashes - 1)) : 0;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      this.wake();
    }, pause);
    this.restartTimer.unref?.();
  }
}
