/**
 * The resident memory each open session costs, for the engines' health (issue 38: "resident
 * memory per model"). onnxruntime-node reports no allocator statistics, and memory belongs to the
 * process, not to a thread, so the cost of a model file is measured once, the first time it opens:
 * the growth of the process's anonymous RSS across that open (its worker, weights, prepacked kernels
 * and onnxruntime's per-session state), with the C heap (the new worker's arena included) trimmed
 * before and after so freed load-time buffers do not count. First opens go one at a time so they do not count each other; later
 * sessions of the same file (pool members) take the same figure and open in parallel as before.
 * Working memory a run takes is not counted: it goes back once the sessions idle (native-heap.ts).
 * The onnxruntime library's pages (file-backed, about 25 MB once in the process) count for no model.
 */
import { readFileSync } from "node:fs";
import { trimHeap } from "./native-heap.ts";

const measured = new Map<string, number>();
const measuring = new Map<string, Promise<number>>();
let queue: Promise<unknown> = Promise.resolve();
const open = new Map<object, { readonly label: string; readonly bytes: number }>();

/**
 * The process's anonymous resident memory (RssAnon) after a heap trim. Anonymous only: the pages
 * of the onnxruntime library a first session touches are file-backed and shared by every model,
 * and a model file read into memory is anonymous once copied.
 */
async function anonymousRss(trimWorker: () => Promise<void>): Promise<number> {
  await trimHeap(trimWorker);
  try {
    const kb = /RssAnon:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (kb !== undefined) return Number(kb) * 1024;
  } catch {
    // Not Linux: the whole RSS is the best there is.
  }
  return process.memoryUsage.rss();
}

/**
 * Opens `count` sessions of the model file `key` at once through `opener`, measuring their cost if
 * this is the file's first open (see the file comment; the members of a pool opened together share
 * the growth); resolves to each open's outcome and the cost of one session in bytes.
 */
export async function openMeasured<T>(
  key: string,
  count: number,
  opener: (index: number) => Promise<T>,
  trimArena: (value: T) => Promise<void>,
): Promise<{ results: PromiseSettledResult<T>[]; bytes: number }> {
  const openAll = () => Promise.allSettled(Array.from({ length: count }, (_, i) => opener(i)));
  const known = measured.get(key);
  if (known !== undefined) {
    const results = await openAll();
    // A session's load-time buffers (the parsed model, graph rewrites) are freed into its worker's
    // malloc arena, which keeps them until nudged (native-heap.ts): give them back now.
    const opened = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    await trimHeap(async () => {
      await Promise.all(opened.map(trimArena));
    });
    return { results, bytes: known };
  }
  const pending = measuring.get(key);
  if (pending !== undefined) {
    await pending.catch(() => undefined);
    return openMeasured(key, count, opener, trimArena);
  }
  let results: PromiseSettledResult<T>[] = [];
  const measurement = queue.then(async () => {
    // Only the new sessions' own thread arenas are nudged: other workers may be busy (a warm-up
    // run), and waiting for them would slow start-up.
    const before = await anonymousRss(async () => {});
    results = await openAll();
    const opened = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    if (opened.length === 0) return undefined;
    const after = await anonymousRss(async () => {
      await Promise.all(opened.map(trimArena));
    });
    return Math.max(0, after - before) / opened.length;
  });
  queue = measurement.catch(() => undefined);
  // Waiters only need to know it settled (a failure must not surface as an unhandled rejection).
  measuring.set(
    key,
    measurement.then(
      () => 0,
      () => 0,
    ),
  );
  try {
    const bytes = await measurement;
    if (bytes !== undefined) measured.set(key, bytes);
    return { results, bytes: bytes ?? 0 };
  } finally {
    measuring.delete(key);
  }
}

/** Counts `session` (labelled `pack/file`) as open with its cost; {@link untrackSession} when it is freed. */
export function trackSession(session: object, label: string, bytes: number): void {
  open.set(session, { label, bytes });
}

/** Stops counting `session`. */
export function untrackSession(session: object): void {
  open.delete(session);
}

/** Resident bytes of the open sessions labelled `pack` or `pack/…` (a pack's models, every pool member). */
export function packResidentBytes(pack: string): number {
  let bytes = 0;
  for (const { label, bytes: b } of open.values()) if (label === pack || label.startsWith(`${pack}/`)) bytes += b;
  return bytes;
}

/** Resident MB of `pack`'s open sessions, one decimal, for health details. */
export function packResidentMb(pack: string): number {
  return Math.round((packResidentBytes(pack) / 2 ** 20) * 10) / 10;
}

/**
 * An object with one number per pack of `packs`: its resident MB ({@link packResidentMb}), read
 * whenever the object is serialised, so health shows the sessions open now.
 */
export function residentMbOf(packs: readonly string[]): Readonly<Record<string, number>> {
  const entries: PropertyDescriptorMap = {};
  for (const pack of packs) entries[pack] = { enumerable: true, get: () => packResidentMb(pack) };
  return Object.defineProperties({}, entries) as Readonly<Record<string, number>>;
}
