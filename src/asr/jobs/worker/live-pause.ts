/**
 * Pauses the jobs worker outright while live work runs (docs/jobs.md, "Priority"). While any
 * live work runs or waits on the service's ASR or TTS admission (Admission.watchLive), the worker
 * is stopped (SIGSTOP), and it goes on (SIGCONT) once live work has been quiet for
 * {@link RESUME_AFTER_MS}: even at background priority a running batch costs a live call cache
 * and memory bandwidth (a fifth of its latency with a real model on two cores). The worker holds
 * no lock and no resource the service waits on, so stopping it anywhere is safe.
 */
import type { LiveLoad } from "../../../serving/admission.ts";

/** Quiet time after live work before a paused worker goes on (a burst's next request finds it paused). */
const RESUME_AFTER_MS = 100;

/** A worker as pausing sees it: a process that takes signals. */
export interface Pausable {
  kill(signal: "SIGSTOP" | "SIGCONT"): void;
}

/** A gate whose live work pauses the worker. */
export interface LiveGate {
  readonly liveLoad: LiveLoad;
  watchLive(listener: (load: LiveLoad) => void): () => void;
}

/** Follows live work on `gates` and pauses or resumes the worker `current()` names. */
export class LivePause {
  /** The worker stopped here, if any. */
  private paused: Pausable | undefined;
  private resumeTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly unwatch: Array<() => void>;

  constructor(
    private readonly gates: readonly LiveGate[],
    /** The worker that may be paused now (undefined: none, or one that must not be: see ./dispatcher.ts). */
    private readonly current: () => Pausable | undefined,
  ) {
    this.unwatch = gates.map((gate) => gate.watchLive(() => this.follow()));
  }

  /** Pauses the worker at once while live work runs or waits; resumes it after a quiet moment. */
  follow(): void {
    const busy = this.gates.some((gate) => gate.liveLoad.running + gate.liveLoad.queued > 0);
    if (busy) {
      clearTimeout(this.resumeTimer);
      this.resumeTimer = undefined;
      const worker = this.current();
      if (worker && this.paused !== worker) {
        worker.kill("SIGSTOP");
        this.paused = worker;
      }
    } else if (this.paused && this.resumeTimer === undefined) {
      this.resumeTimer = setTimeout(() => this.resume(), RESUME_AFTER_MS);
      this.resumeTimer.unref?.();
    }
  }

  /** Lets a paused worker go on now (one being stopped must hear it). */
  resume(): void {
    clearTimeout(this.resumeTimer);
    this.resumeTimer = undefined;
    const worker = this.paused;
    this.paused = undefined;
    worker?.kill("SIGCONT");
  }

  /** The worker is gone: nothing to resume. */
  forget(): void {
    clearTimeout(this.resumeTimer);
    this.resumeTimer = undefined;
    this.paused = undefined;
  }

  /** Stops following live work; a paused worker goes on (it could not hear a stop otherwise). */
  close(): void {
    for (const unwatch of this.unwatch) unwatch();
    this.resume();
  }
}
