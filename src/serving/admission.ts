/**
 * Admission control per engine (D13), after Triton's queue policy: at most `concurrency` jobs run,
 * at most `maxQueue` wait in FIFO order; a full queue rejects at once (503 + Retry-After), a wait
 * longer than the queue timeout fails (504). A request may only shorten its timeout (gRPC
 * deadlines). A job whose caller went away (AbortSignal) leaves the queue and never runs.
 *
 * Shutdown: {@link Admission.drain} waits for running and queued work. It refuses nothing itself —
 * new requests are refused earlier, by the engine's draining state (`EngineState.require`), so a
 * request that was already in flight when shutdown began (an upload still streaming in) is still
 * admitted and finishes.
 *
 * A freed slot is handed to the head of the queue synchronously (the slot is counted as taken
 * before the waiter resumes), so a request arriving in between can never jump the queue or push
 * the engine over its concurrency. A waiter whose deadline passed is failed at hand-over time
 * even when its timer has not fired yet (a busy event loop fires timers late): expiry is decided
 * by the clock, not by timer order.
 *
 * Transcription jobs never pass through the service's gates: they run in the jobs worker process,
 * which the service pauses while its gates have live work ({@link Admission.watchLive}).
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
}

/** The work of a gate: running and waiting. */
export interface LiveLoad {
  readonly running: number;
  readonly queued: number;
}

/** Counters exposed to metrics (monotonic, except `running` and `queued`). */
export interface AdmissionStats {
  /** Jobs running now. */
  readonly running: number;
  /** Jobs waiting now. */
  readonly queued: number;
  readonly admitted: number;
  /** 503: queue full. */
  readonly rejectedBusy: number;
  /** 504: waited past the queue timeout. */
  readonly timedOut: number;
  /** The caller went away while queued; the job never ran. */
  readonly abandoned: number;
  readonly completed: number;
  /** Sum of queue waits of admitted jobs, seconds. */
  readonly queueWaitSecondsTotal: number;
}

/** Per-call admission options. */
export interface AdmissionRequest {
  /** Aborts when the caller goes away; a queued job then leaves the queue without running. */
  readonly signal?: AbortSignal;
  /** A shorter queue timeout than the engine's (ignored when longer or not a finite number). */
  readonly timeoutMs?: number;
}

interface Waiter {
  readonly enqueuedAt: number;
  readonly deadline: number;
  /** Takes the slot already counted for it and resumes the caller. */
  start(): void;
  fail(error: Error): void;
}

/** Jobs running under every Admission of the process (see {@link runningAdmittedJobs}). */
let runningEverywhere = 0;

/**
 * Admitted jobs running now across every engine of the process. The session pool reads it to tell
 * a lone request (one) from one whose company is still in the front-end (more), without waiting.
 */
export function runningAdmittedJobs(): number {
  return runningEverywhere;
}

/** A run-to-completion gate with a bounded FIFO queue. */
export class Admission {
  private readonly counters = {
    running: 0,
    admitted: 0,
    rejectedBusy: 0,
    timedOut: 0,
    abandoned: 0,
    completed: 0,
    queueWaitSecondsTotal: 0,
  };
  private readonly queue: Waiter[] = [];
  private readonly waitListeners = new Set<(seconds: number) => void>();
  private draining = false;
  private idleResolvers: Array<() => void> = [];
  private recentRunMs = 1000;
  private readonly liveListeners = new Set<(load: LiveLoad) => void>();
  private lastLive: LiveLoad = { running: 0, queued: 0 };

  constructor(readonly options: AdmissionOptions) {}

  /** A snapshot of the counters. */
  get stats(): AdmissionStats {
    return { ...this.counters, queued: this.queue.length };
  }

  /** True once {@link drain} was called. */
  get isDraining(): boolean {
    return this.draining;
  }

  /** Hears the queue wait (seconds, 0 when admitted at once) of every admitted job; returns unsubscribe. */
  onAdmitted(listener: (waitSeconds: number) => void): () => void {
    this.waitListeners.add(listener);
    return () => this.waitListeners.delete(listener);
  }

  /**
   * Runs `job` once a slot is free. Rejects with AppError `unavailable` (queue full, with
   * Retry-After), `timeout` (waited too long), or the signal's reason when the caller left.
   */
  async run<T>(job: () => Promise<T>, request: AdmissionRequest = {}): Promise<T> {
    request.signal?.throwIfAborted();
    if (this.counters.running < this.options.concurrency && this.queue.length === 0) {
      this.started();
      this.admit(0);
    } else {
      await this.wait(request);
    }
    this.notifyLive();
    const started = performance.now();
    try {
      return await job();
    } finally {
      this.recentRunMs = 0.8 * this.recentRunMs + 0.2 * (performance.now() - started);
      this.counters.running--;
      runningEverywhere--; // the one place a job ends; started() is where it begins
      this.counters.completed++;
      this.next();
      this.notifyLive();
    }
  }

  /** Hears this gate's live load on every change (the service pauses its jobs worker by it); returns unsubscribe. */
  watchLive(listener: (load: LiveLoad) => void): () => void {
    this.liveListeners.add(listener);
    return () => this.liveListeners.delete(listener);
  }

  /** This gate's live load now. */
  get liveLoad(): LiveLoad {
    return { running: this.counters.running, queued: this.queue.length };
  }

  /** Seconds a rejected client should wait: roughly how long the work ahead takes to clear. */
  retryAfterSeconds(): number {
    const ahead = this.queue.length + this.counters.running;
    return Math.min(60, Math.max(1, Math.ceil((ahead * this.recentRunMs) / this.options.concurrency / 1000)));
  }

  /** Marks the gate draining; resolves when nothing runs or waits (queued work still runs). */
  drain(): Promise<void> {
    this.draining = true;
    if (this.counters.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleResolvers.push(resolve));
  }

  private admit(waitSeconds: number): void {
    this.counters.admitted++;
    this.counters.queueWaitSecondsTotal += waitSeconds;
    for (const listener of this.waitListeners) listener(waitSeconds);
  }

  private wait(request: AdmissionRequest): Promise<void> {
    if (this.queue.length >= this.options.maxQueue) {
      this.counters.rejectedBusy++;
      return Promise.reject(
        new AppError("unavailable", this.options.busyDetail, { retryAfter: this.retryAfterSeconds() }),
      );
    }
    const asked = request.timeoutMs;
    const timeoutMs =
      asked !== undefined && Number.isFinite(asked)
        ? Math.max(0, Math.min(this.options.queueTimeoutMs, asked))
        : this.options.queueTimeoutMs;
    return new Promise<void>((resolve, reject) => {
      const enqueuedAt = performance.now();
      const leave = () => {
        clearTimeout(timer);
        request.signal?.removeEventListener("abort", onAbort);
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
        this.notifyLive();
      };
      const waiter: Waiter = {
        enqueuedAt,
        deadline: enqueuedAt + timeoutMs,
        start: () => {
          leave();
          this.admit((performance.now() - enqueuedAt) / 1000);
          resolve();
        },
        fail: (error) => {
          leave();
          reject(error);
          this.checkIdle();
        },
      };
      const onAbort = () => {
        this.counters.abandoned++;
        const reason: unknown = request.signal?.reason;
        waiter.fail(reason instanceof Error ? reason : new Error("client went away"));
      };
      const timer = setTimeout(() => this.expire(waiter), timeoutMs);
      request.signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(waiter);
      this.notifyLive();
    });
  }

  /** Tells the live-load listeners when the live load changed. */
  private notifyLive(): void {
    if (this.liveListeners.size === 0) return;
    const load = this.liveLoad;
    if (load.running === this.lastLive.running && load.queued === this.lastLive.queued) return;
    this.lastLive = load;
    for (const listener of this.liveListeners) listener(load);
  }

  private expire(waiter: Waiter): void {
    this.counters.timedOut++;
    waiter.fail(new AppError("timeout", this.options.timeoutDetail));
  }

  /** Hands free slots to the oldest live waiters; expired ones are failed on the way. */
  private next(): void {
    while (this.counters.running < this.options.concurrency && this.queue.length > 0) {
      const waiter = this.queue[0]!;
      if (performance.now() >= waiter.deadline) {
        this.expire(waiter);
        continue;
      }
      this.started();
      waiter.start();
    }
    this.checkIdle();
  }

  /** Counts a job as running here and in the process-wide count, together. */
  private started(): void {
    this.counters.running++;
    runningEverywhere++;
  }

  private checkIdle(): void {
    if (this.counters.running === 0 && this.queue.length === 0) {
      for (const resolve of this.idleResolvers.splice(0)) resolve();
    }
  }
}
