/**
 * What a background process (the jobs worker) sets up for itself: it dies with the process that
 * started it ({@link dieWithParent}), and it takes background CPU priority: Linux's SCHED_IDLE policy,
 * under which a thread runs only when no ordinary thread wants its core, and is preempted the
 * moment one does; plus the lowest nice value, which is what remains where SCHED_IDLE cannot be
 * set. Both are per thread on Linux and inherited by threads created later, so the threads that
 * exist now are set one by one and the ones started afterwards (onnxruntime's pools, Bun's
 * workers) follow their creators.
 *
 * bun:ffi calls glibc's sched_setscheduler and prctl because neither Node's nor Bun's API has them.
 */
import { readdirSync } from "node:fs";
import { setPriority } from "node:os";

/** Linux's SCHED_IDLE policy number (sched.h). */
const SCHED_IDLE = 5;
const LOWEST_NICE = 19;

/** prctl(2): PR_SET_PDEATHSIG, and the signal it is given. */
const PR_SET_PDEATHSIG = 1;
const SIGKILL = 9;

interface Libc {
  setScheduler(tid: number, policy: number, param: Int32Array): number;
  prctl(option: number, arg: number): number;
}
let libc: Libc | null | undefined;

async function loadLibc(): Promise<Libc | null> {
  if (libc !== undefined) return libc;
  libc = null;
  if (process.platform !== "linux") return null;
  try {
    const { dlopen, FFIType, ptr } = await import("bun:ffi");
    const { symbols } = dlopen("libc.so.6", {
      sched_setscheduler: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
      prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
    });
    libc = {
      setScheduler: (tid, policy, param) => symbols.sched_setscheduler(tid, policy, ptr(param)),
      prctl: (option, arg) => symbols.prctl(option, arg, 0, 0, 0),
    };
  } catch {
    // Not glibc, or no FFI: nice alone, and the IPC channel's end to notice a lost parent.
  }
  return libc;
}

/**
 * Asks the kernel to SIGKILL this process when its parent dies — even while it is stopped
 * (SIGSTOP: the service pauses its worker while live work runs), when it could not notice the
 * IPC channel closing. Returns whether it could be set.
 */
export async function dieWithParent(): Promise<boolean> {
  const c = await loadLibc();
  return c !== null && c.prctl(PR_SET_PDEATHSIG, SIGKILL) === 0;
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
  const c = await loadLibc();
  const param = new Int32Array(1); // struct sched_param { int sched_priority = 0 }
  let idleThreads = 0;
  let nicedThreads = 0;
  for (const tid of tasks) {
    if (c && c.setScheduler(tid, SCHED_IDLE, param) === 0) idleThreads++;
    try {
      setPriority(tid, LOWEST_NICE);
      nicedThreads++;
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return { idleThreads, nicedThreads };
}
