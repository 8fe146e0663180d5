/**
 * onnxruntime's working memory on the C heap, returned to the system when the sessions idle
 * (issue 38), for the sessions that ask (SessionOptions.shrinkWorkingMemory). With its default
 * arena, a CPU session keeps the peak of every run for good: a Moonshine decoder step dequantises
 * its whole 9.4 M-entry output projection (38 MB) and a 20 s encoder run holds attention maps of
 * tens of MB, so each pool member of the built-in recogniser sat on ~55 MB after its first 0.5 s
 * warm-up run and more after real audio. onnxruntime-node cannot shrink an arena (its run options
 * take no `memory.enable_memory_arena_shrinkage`), so those sessions run without one
 * (`enableCpuMemArena: false`, and without the memory pattern's one block per run: see
 * session-worker.ts) and allocate from glibc's malloc, tuned here so that this is as fast:
 *
 * - the mmap threshold is raised (glibc otherwise maps every block above 32 MB afresh and unmaps it
 *   on free: the 38 MB buffer then page-faults in on every decoder step, measured 2× slower) and
 *   the trim threshold too, so a run reuses the blocks of the last one; and the top padding, so a
 *   worker arena's heap that a freed block emptied is kept, not unmapped (glibc deletes such heaps
 *   whatever the trim threshold);
 * - once no session has had work for {@link TRIM_AFTER_IDLE_MS} (or when an engine has loaded and
 *   warmed up), the heap is trimmed: the trim threshold drops, each session worker frees a block in
 *   its own thread's malloc arena (glibc shrinks a thread arena's top only on a free in it;
 *   `malloc_trim` leaves those tops alone), then `malloc_trim(0)` returns the free pages of every
 *   arena and the threshold and the padding go back up. The first run after a trim faults its working memory
 *   back in (a 20 s Moonshine request: ~20–30 ms).
 *
 * Measured on Moonshine tiny (20 s, 48 decoder steps, in-process): arena 690–830 ms a decode, no
 * arena on glibc's defaults 1370–1480 ms, no arena with this tuning 690–890 ms; resident memory
 * after warm-up and one 20 s decode 238 MB with the arena, 101 MB without it once trimmed.
 *
 * Only on glibc (the appliance's Debian): where libc cannot be opened or refuses the settings,
 * {@link heapTuned} is false and sessions keep onnxruntime's arena.
 */
import { dlopen, FFIType, type Pointer } from "bun:ffi";

/** mallopt parameters (malloc.h). */
const M_TRIM_THRESHOLD = -1;
const M_TOP_PAD = -2;
const M_MMAP_THRESHOLD = -3;
/** Blocks below this come from the heap (and are reused); a 20 s Moonshine run needs up to ~40 MB. */
const MMAP_THRESHOLD_BYTES = 256 * 2 ** 20;
/** Free memory a heap's top keeps while sessions work (trimming waits for idle). */
const BUSY_TRIM_THRESHOLD_BYTES = 1024 * 2 ** 20;
/** glibc's default trim threshold, in force while an idle trim runs. */
const IDLE_TRIM_THRESHOLD_BYTES = 128 * 1024;
/**
 * Padding a heap keeps while sessions work: at least a worker arena's heap size (64 MB), so glibc
 * never unmaps a heap of a worker's arena that a freed block emptied (it deletes such a heap
 * whatever the trim threshold unless the padding asks to keep it). A block too large for the
 * arena's first heap (a Moonshine decoder step's 38 MB dequantised projection beside a 34 MB
 * session) otherwise gets a heap of its own, mapped and unmapped on every step: 25× the page
 * faults and up to 1.5× the CPU of a decode.
 */
const BUSY_TOP_PAD_BYTES = 64 * 2 ** 20;
/** glibc's default padding, in force while an idle trim runs. */
const IDLE_TOP_PAD_BYTES = 128 * 1024;
/** A block a worker frees to make glibc trim its arena's top (at least glibc's 64 KB consolidation size). */
const NUDGE_BYTES = 256 * 1024;

/**
 * How long the sessions must have been idle before the heap is trimmed: a request arriving within
 * it finds its working memory still mapped, and a busy server never trims.
 */
export const TRIM_AFTER_IDLE_MS = 5000;

interface Libc {
  mallopt(param: number, value: number): number;
  malloc_trim(pad: number): number;
  malloc(size: number): Pointer | null;
  free(pointer: Pointer | null): void;
}

let libc: Libc | null | undefined;
let tuned: boolean | undefined;

function openLibc(): Libc | null {
  if (libc !== undefined) return libc;
  try {
    libc = dlopen("libc.so.6", {
      mallopt: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
      malloc_trim: { args: [FFIType.u64], returns: FFIType.i32 },
      malloc: { args: [FFIType.u64], returns: FFIType.ptr },
      free: { args: [FFIType.ptr], returns: FFIType.void },
    }).symbols as unknown as Libc;
  } catch {
    libc = null;
  }
  return libc;
}

/**
 * Tunes the heap (once per process, on the main thread, before sessions open) and says whether
 * sessions may run without onnxruntime's arena.
 */
export function heapTuned(): boolean {
  if (tuned !== undefined) return tuned;
  const c = openLibc();
  tuned =
    c !== null &&
    c.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) === 1 &&
    c.mallopt(M_TRIM_THRESHOLD, BUSY_TRIM_THRESHOLD_BYTES) === 1 &&
    c.mallopt(M_TOP_PAD, BUSY_TOP_PAD_BYTES) === 1;
  return tuned;
}

/**
 * In a session worker during an idle trim: frees a block of this thread's malloc arena, so glibc
 * trims that arena's top under the idle threshold (see the file comment).
 */
export function trimThreadArena(): void {
  const c = openLibc();
  if (c === null) return;
  c.free(c.malloc(NUDGE_BYTES));
}

/** Asks every session worker to {@link trimThreadArena}; resolves when they have. */
type WorkerTrim = () => Promise<void>;
let trimWorkers: WorkerTrim = async () => {};

/** Sets how an idle trim reaches the session workers (worker-session.ts). */
export function useWorkerTrim(trim: WorkerTrim): void {
  trimWorkers = trim;
}

let working = 0;
let timer: ReturnType<typeof setTimeout> | undefined;
let trimming: Promise<void> | undefined;

/**
 * Trims the heap now (see the file comment): the arenas of the workers `workers` reaches (every
 * session worker by default), then every arena's free pages; nothing without a tuned heap.
 */
export function trimHeap(workers: WorkerTrim = trimWorkers): Promise<void> {
  const c = openLibc();
  if (c === null || !heapTuned()) return Promise.resolve();
  const previous = trimming ?? Promise.resolve();
  const run = previous.then(async () => {
    c.mallopt(M_TRIM_THRESHOLD, IDLE_TRIM_THRESHOLD_BYTES);
    c.mallopt(M_TOP_PAD, IDLE_TOP_PAD_BYTES);
    try {
      await workers();
      c.malloc_trim(0);
    } finally {
      c.mallopt(M_TRIM_THRESHOLD, BUSY_TRIM_THRESHOLD_BYTES);
      c.mallopt(M_TOP_PAD, BUSY_TOP_PAD_BYTES);
    }
  });
  trimming = run.finally(() => {
    if (trimming === tail) trimming = undefined;
  });
  const tail = trimming;
  return run;
}

/**
 * Marks session work (a run, a scan, a hold) as begun; pair with {@link sessionWorkEnded}. The
 * heap is trimmed once all of it has ended and none began for {@link TRIM_AFTER_IDLE_MS}.
 */
export function sessionWorkBegan(): void {
  working++;
  clearTimeout(timer);
  timer = undefined;
}

/** Marks session work as ended (see {@link sessionWorkBegan}). */
export function sessionWorkEnded(): void {
  working = Math.max(0, working - 1);
  if (working > 0 || !heapTuned()) return;
  clearTimeout(timer);
  timer = setTimeout(() => {
    timer = undefined;
    if (working === 0) void trimHeap();
  }, TRIM_AFTER_IDLE_MS);
  // A pending trim never keeps an offline run's process alive.
  timer.unref();
}
