/**
 * Admission control per engine (D13), after Triton's queue policy: at most `concurrency` jobs run,
 * at most `maxQueue` wait; a full queue rejects at once (503 + Retry-After), a wait longer than the
 * queue timeout fails (504). A request may only shorten its timeout. A job whose caller went away
 * (AbortSignal) leaves the queue and never runs.
 */
import { AppError } from "../errors/taxonomy.ts";

/** Admission settings and the detail texts of one engine. */
export interface AdmissionOptions {
  readonly name: string;
  readonly concurrency: number;
  readonly maxQueue: number;
  readonly queueTimeoutMs: number;
  readonly busyDetail: string;
  readonly timeoutDetail: string;
  readonly drainingDetail: string;
}

/** Counters exposed to metrics. */
export interface AdmissionStats {
  running: number;
  queued: number;
  admitted: number;
  rejectedBusy: number;
  timedOut: number;
  abandoned: number;
  completed: number;
  /** Sum of queue waits in ms of admitted jobs. */
  queueWaitMsTotal: number;
}

interface Waiter {
  readonly enqueuedAt: number;
  start(): void;
  fail(error: Error): void;
}

/** A run-to-completion gate with a bounded FIFO queue. */
export class Admission {
  readonly stats: AdmissionStats = { running: 0, queued: 0, admitted: 0, rejectedBusy: 0, timedOut: 0, abandoned: 0, completed: 0, queueWaitMsTotal: 0 };
  private readonly queue: Waiter[] = [];
  private draining = false;
  private idleResolvers: Array<() => void> = [];
  private recentRunMs = 1000;

  constructor(readonly options: AdmissionOptions) {}

  /** Runs `job` when a slot frees. Rejects with AppError unavailable/timeout, or the signal's reason. */
  async run<T>(job: () => Promise<T>, request: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<T> {
    if (this.draining) throw new AppError("unavailable", this.options.drainingDetail, { retryAfter: 5 });
    request.signal?.throwIfAborted();
    if (this.stats.running >= this.options.concurrency || this.queue.length > 0) {
      await this.wait(request);
    }
    this.stats.running++;
    this.stats.admitted++;
    const started = performance.now();
    try {
      return await job();
    } finally {
      this.recentRunMs = 0.8 * this.recentRunMs + 0.2 * (performance.now() - started);
      this.stats.running--;
      this.stats.completed++;
      this.next();
    }
  }

  /** Seconds a rejected client should wait: roughly how long the queue ahead takes to clear. */
  retryAfterSeconds(): number {
    const ahead = this.queue.length + this.stats.running;
    return Math.min(60, Math.max(1, Math.ceil((ahead * this.recentRunMs) / this.options.concurrency / 1000)));
  }

  /** Stops admitting; resolves when nothing runs or waits. */
  drain(): Promise<void> {
    this.draining = true;
    return this.stats.running === 0 && this.queue.length === 0 ? Promise.resolve() : new Promise((resolve) => this.idleResolvers.push(resolve));
  }

  private wait(request: { signal?: AbortSignal; timeoutMs?: number }): Promise<void> {
    if (this.queue.length >= this.options.maxQueue) {
      this.stats.rejectedBusy++;
      throw new AppError("unavailable", this.options.busyDetail, { retryAfter: this.retryAfterSeconds() });
    }
    const timeoutMs = Math.min(this.options.queueTimeoutMs, request.timeoutMs ?? Infinity);
    return new Promise<void>((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        request.signal?.removeEventListener("abort", onAbort);
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
        this.stats.queued = this.queue.length;
      };
      const waiter: Waiter = {
        enqueuedAt: performance.now(),
        start: () => {
          cleanup();
          this.stats.queueWaitMsTotal += performance.now() - waiter.enqueuedAt;
          resolve();
        },
        fail: (error) => {
          cleanup();
          reject(error);
          this.checkIdle();
        },
      };
      const timer = setTimeout(() => {
        this.stats.timedOut++;
        waiter.fail(new AppError("timeout", this.options.timeoutDetail));
      }, timeoutMs);
      const onAbort = () => {
        this.stats.abandoned++;
        waiter.fail(request.signal?.reason instanceof Error ? request.signal.reason : new Error("client went away"));
      };
      request.signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(waiter);
      this.stats.queued = this.queue.length;
    });
  }

  private next(): void {
    const waiter = this.queue[0];
    if (waiter && this.stats.running < this.options.concurrency) waiter.start();
    else this.checkIdle();
  }

  private checkIdle(): void {
    if (this.stats.running === 0 && this.queue.length === 0) {
      for (const resolve of this.idleResolvers.splice(0)) resolve();
    }
  }
}
