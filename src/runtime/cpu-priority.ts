/**
 * Background CPU priority for a whole process (the jobs worker): Linux's SCHED_IDLE policy,
 * under which a thread runs only when no ordinary thread wants its core, and is preempted the
 * moment one does; plus the lowest nice value, which is what remains where SCHED_IDLE cannot be
 * set. Both are per thread on Linux and inherited by threads created later, so the threads that
 * exist now are set one by one and the ones started afterwards (onnxruntime's pools, Bun's
 * workers) follow their creators.
 *
 * bun:ffi calls glibc's sched_setscheduler because neither Node's nor Bun's API sets a policy.
 */
import { readdirSync } from "node:fs";
import { setPriority } from "node:os";

/** Linux's SCHED_IDLE policy number (sched.h). */
const SCHED_IDLE = 5;
const LOWEST_NICE = 19;

type SetScheduler = (tid: number, policy: number, param: Int32Array) => number;
let setScheduler: SetScheduler | null | undefined;

async function scheduler(): Promise<SetScheduler | null> {
  if (setScheduler !== undefined) return setScheduler;
  setScheduler = null;
  if (process.platform !== "linux") return null;
  try {
    const { dlopen, FFIType, ptr } = await import("bun:ffi");
    const libc = dlopen("libc.so.6", {
      sched_setscheduler: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
    });
    setScheduler = (tid, policy, param) => libc.symbols.sched_setscheduler(tid, policy, ptr(param));
  } catch {
    // Not glibc, or no FFI: nice alone.
  }
  return setScheduler;
}

/** What {@link runInBackground} could set. */
export interface BackgroundPriority {
  /** Threads set to SCHED_IDLE (0 where the policy is unavailable). */
  readonly idleThreads: number;
  /** Threads given the lowest nice value. */
  readonly nicedThreads: number;
}

/** Gives every thread of this process background CPU priority; returns what it could set. */
export async function runInBackground(): Promise<BackgroundPriority> {
  let tasks: number[];
  try {
    tasks = readdirSync("/proc/self/task").map(Number);
  } catch {
    tasks = [0]; // no procfs: the calling thread at least
  }
  const set = await scheduler();
  const param = new Int32Array(1); // struct sched_param { int sched_priority = 0 }
  let idleThreads = 0;
  let nicedThreads = 0;
  for (const tid of tasks) {
    if (set && set(tid, SCHED_IDLE, param) === 0) idleThreads++;
    try {
      setPriority(tid, LOWEST_NICE);
      nicedThreads++;
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return { idleThreads, nicedThreads };
}
