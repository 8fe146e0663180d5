/**
 * Runs a process's job files in a worker process of their own (issue #28: a night batch must
 * never slow a live call). The worker is the same executable (`sawt __jobs-worker`) running
 * with the lowest CPU priority: the kernel gives live work its cores first, and the worker's
 * decoding, inference and result writes never share the serving process's event loop. Its
 * batch slots still follow the serving process's admission: the worker hears the live load on
 * every change and takes only the slots live work leaves free, giving one back at the next piece
 * boundary when live work needs it (Admission.setExternalLoad).
 *
 * The worker is started when files are queued and leaves when it has been idle a while (its
 * models are loaded only while there is batch work). When it dies, the files it was running go
 * back to the queue and it is started again — at once after a clean exit, after a growing pause
 * (up to a minute) after a crash, so a worker that cannot start is reported, not spun.
 */
import type { LiveLoad } from "../../../runtime/admission.ts";
import type { Logger } from "../../../log/logger.ts";
import type { FileRunner, FromWorker, ToWorker } from "./protocol.ts";

/** A running worker process, as the runner needs it. */
export interface WorkerHandle {
  send(message: ToWorker): void;
  kill(signal?: NodeJS.Signals): void;
  /** Settles with the exit code when the process has ended. */
  readonly exited: Promise<number>;
}

/** What the runner needs from its process. */
export interface ProcessRunnerOptions {
  /** Starts a worker process whose messages go to `onMessage`. */
  readonly spawn: (onMessage: (message: FromWorker) => void) => WorkerHandle;
  /** The settings the worker runs by (sent in its `start` message). */
  readonly config: unknown;
  /** The serving process's ASR admission: its live load, and changes to it. */
  readonly live: { readonly liveLoad: LiveLoad; watchLive(listener: (load: LiveLoad) => void): () => void };
  /** Whether a file is waiting to be claimed. */
  readonly claimable: () => boolean;
  /** Puts files left `running` by a lost worker back in the queue; returns how many. */
  readonly recover: (workerCrashed: boolean) => number;
  readonly log: Logger;
  readonly onFile?: (status: "completed" | "failed", audioSeconds: number) => void;
  readonly onDeliveries?: () => void;
}

/** How long a worker asked to stop may take before it is killed. */
const STOP_GRACE_MS = 10_000;
/** Pause before restarting a worker that crashed: doubled per crash in a row, at most a minute. */
const CRASH_PAUSE_MS = 1_000;
const MAX_CRASH_PAUSE_MS = 60_000;

/** Job files run by a worker process. */
export class ProcessRunner implements FileRunner {
  private worker: WorkerHandle | undefined;
  private restartTimer: ReturnType<typeof setTimeout> | undefined;
  private crashes = 0;
  private claiming = true;
  /** The worker being ended was killed here (it did not stop in time): not a crash of its own. */
  private killed = false;
  private readonly unwatch: () => void;

  constructor(private readonly options: ProcessRunnerOptions) {
    this.unwatch = options.live.watchLive((load) => this.worker?.send({ type: "load", load }));
  }

  /** Whether a worker process runs now. */
  get workerRunning(): boolean {
    return this.worker !== undefined;
  }

  wake(): void {
    if (!this.claiming) return;
    if (this.worker) this.worker.send({ type: "wake" });
    else if (this.restartTimer === undefined && this.options.claimable()) this.start();
  }

  abortJob(jobId: string): void {
    this.worker?.send({ type: "abort", jobId });
  }

  quiesce(): void {
    this.claiming = false;
    clearTimeout(this.restartTimer);
    this.worker?.send({ type: "quiesce" });
  }

  /** Asks the worker to stop (its running files go back to the queue); kills it after a grace. */
  async stop(): Promise<void> {
    this.claiming = false;
    this.unwatch();
    clearTimeout(this.restartTimer);
    await this.stopWorker();
  }

  /** Stops the worker and starts a new one (the engine's models changed). */
  async restart(): Promise<void> {
    if (!this.worker) return;
    await this.stopWorker();
    this.wake();
  }

  private async stopWorker(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    worker.send({ type: "stop" });
    const ended = await Promise.race([worker.exited.then(() => true), Bun.sleep(STOP_GRACE_MS).then(() => false)]);
    if (!ended) {
      this.options.log.warn("jobs worker did not stop in time; killed", { grace_ms: STOP_GRACE_MS });
      this.killed = true;
      worker.kill("SIGKILL");
      await worker.exited;
    }
  }

  private start(): void {
    let worker: WorkerHandle;
    try {
      worker = this.options.spawn((message) => this.heard(message));
    } catch (error) {
      this.options.log.error("jobs worker could not be started", { error: String(error) });
      this.afterExit(1);
      return;
    }
    this.worker = worker;
    void worker.exited.then((code) => {
      if (this.worker === worker) this.worker = undefined;
      this.afterExit(code);
    });
  }

  private heard(message: FromWorker): void {
    switch (message.type) {
      case "hello":
        this.worker?.send({ type: "start", config: this.options.config, load: this.options.live.liveLoad });
        return;
      case "ready":
        this.crashes = 0;
        return;
      case "failed":
        this.options.log.error("jobs worker cannot transcribe; queued files wait", { reason: message.reason });
        return;
      case "file":
        this.options.onFile?.(message.status, message.audioSeconds);
        return;
      case "deliveries":
        this.options.onDeliveries?.();
        return;
    }
  }

  /** The worker ended: its files go back to the queue, and a new one starts if work waits. */
  private afterExit(code: number): void {
    const requeued = this.options.recover(code !== 0 && !this.killed);
    this.killed = false;
    if (code !== 0) {
      this.crashes++;
      this.options.log.error("jobs worker exited", { code, requeued });
    } else if (requeued > 0) this.options.log.warn("jobs worker left files running; requeued", { requeued });
    if (!this.claiming || !this.options.claimable()) return;
    const pause = code === 0 ? 0 : Math.min(MAX_CRASH_PAUSE_MS, CRASH_PAUSE_MS * 2 ** (this.crashes - 1));
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      this.wake();
    }, pause);
    this.restartTimer.unref?.();
  }
}
