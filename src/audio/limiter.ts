/**
 * A small FIFO counting semaphore. ffmpeg runs are CPU-heavy child processes; bounding how many
 * run at once keeps a burst of uploads from starving the inference threads on small boxes.
 */

/** Releases a slot; calling it more than once is harmless. */
export type Release = () => void;

/** A counting semaphore with a changeable limit. */
export interface Limiter {
  /** Waits for a free slot (first come, first served) and returns its release function. */
  acquire(signal?: AbortSignal): Promise<Release>;
  /** Changes the limit; waiters are admitted at once when it grows. */
  setMax(max: number): void;
  /** Current limit. */
  readonly max: number;
  /** Slots in use. */
  readonly active: number;
  /** Callers waiting for a slot. */
  readonly waiting: number;
}

interface Waiter {
  readonly admit: (release: Release) => void;
  readonly reject: (reason: unknown) => void;
}

/** Creates a limiter admitting at most `max` holders at a time (`max` ≥ 1). */
export function createLimiter(max: number): Limiter {
  let limit = checkMax(max);
  let active = 0;
  const queue: Waiter[] = [];

  const makeRelease = (): Release => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      active -= 1;
      drain();
    };
  };

  const drain = (): void => {
    while (active < limit && queue.length > 0) {
      const next = queue.shift();
      if (next === undefined) break;
      active += 1;
      next.admit(makeRelease());
    }
  };

  return {
    acquire(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (active < limit && queue.length === 0) {
        active += 1;
        return Promise.resolve(makeRelease());
      }
      return new Promise<Release>((resolve, reject) => {
        const onAbort = (): void => {
          const index = queue.indexOf(waiter);
          if (index >= 0) queue.splice(index, 1);
          reject(signal?.reason);
        };
        const waiter: Waiter = {
          admit: (release) => {
            signal?.removeEventListener("abort", onAbort);
            resolve(release);
          },
          reject,
        };
        queue.push(waiter);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },
    setMax(next) {
      limit = checkMax(next);
      drain();
    },
    get max() {
      return limit;
    },
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
  };
}

function checkMax(max: number): number {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`limiter max must be an integer >= 1, got ${max}`);
  return max;
}
