/**
 * The one factory for ONNX sessions. Every engine creates its sessions here, so the execution
 * provider, thread counts, warm-up and threading are the same everywhere.
 *
 * Each session lives in its own worker thread (session-worker.ts): onnxruntime-node runs
 * inference synchronously on the calling JS thread, which on the main thread would freeze HTTP,
 * gRPC, health checks and admission timers for the length of every synthesis. Runs on one
 * session are serialised by its worker; runs on different sessions proceed in parallel; the
 * engines' admission gates bound how many run at once. A model that may run several times at once
 * (`parallel`) gets a pool of sessions sized to the cores (session-pool.ts). The returned {@link Session} has the
 * shape of onnxruntime's InferenceSession that engines use (`run`, names, metadata, `release`),
 * with real `ort.Tensor` values in and out.
 */
import { basename } from "node:path";
import type { Tensor } from "onnxruntime-node";
import { log } from "../log/logger.ts";
import type { DeviceChoice } from "./devices.ts";
import { heapTuned } from "./native-heap.ts";
import { isCompiledBinary, loadOrt, ortLibraryPath } from "./ort.ts";
import { type PoolShape, poolShape, SessionPool } from "./session-pool.ts";
import type { Session } from "./session.ts";
import { openMeasured, trackSession } from "./session-memory.ts";
import { WorkerSession } from "./worker-session.ts";

export type { HeldRun, HeldSession, ScanRequest, Session, TimedRun, ValueMetadata } from "./session.ts";

/** A created session and where it actually runs. */
export interface CreatedSession {
  readonly session: Session;
  readonly provider: "cpu" | "cuda";
}

let device: DeviceChoice = { provider: "cpu", reason: "not configured", gpus: [], intraOpThreads: 1 };

/** `runtime.lift_convolutions`: false runs every graph as written. */
let conv1dLiftAllowed = true;

/**
 * Sets the device decision used by later sessions (called once at start-up), and whether they may
 * run a family's graph with its convolutions lifted (`runtime.lift_convolutions`, default true).
 */
export function useDevice(choice: DeviceChoice, settings: { readonly liftConvolutions?: boolean } = {}): void {
  device = choice;
  conv1dLiftAllowed = settings.liftConvolutions ?? true;
}

/** The device decision in force. */
export function currentDevice(): DeviceChoice {
  return device;
}

/**
 * Where the worker script is. In a checkout it sits beside this file. In the compiled binary the
 * code of this file lives in the main bundle (`/$bunfs/root/<exe>`), and installer/build.ts embeds
 * the worker entry under its path relative to the entries' common root `src/`:
 * `/$bunfs/root/onnx/session-worker.ts`. (The binary test's doctor run proves it.)
 */
function workerUrl(): string {
  return isCompiledBinary()
    ? new URL("./onnx/session-worker.ts", import.meta.url).href
    : new URL("./session-worker.ts", import.meta.url).href;
}

/** Options of {@link createSession}. */
export interface SessionOptions {
  /** Names the model in logs and errors (e.g. the pack folder). */
  readonly label?: string;
  /** Overrides the device decision's provider for this session. */
  readonly provider?: "cpu" | "cuda";
  /** Overrides the device decision's intra-op threads (tiny models run faster on 1). */
  readonly intraOpThreads?: number;
  /**
   * Runs of this model that may go at once (the engine's concurrency, or the pack's own setting):
   * above 1 on CPU the result is a {@link SessionPool} shaped by {@link poolShape}. Ignored with
   * `intraOpThreads` (a model pinned to a thread count is small enough for one session) and on CUDA.
   */
  readonly parallel?: number;
  /**
   * Lets sessions of one intra-op thread run the model with its chains of 1-D convolutions lifted
   * to 2-D (conv-lift.ts: onnxruntime's faster NCHWc kernels; same outputs within float rounding).
   * For model families made of long Conv1d chains (VITS); the original graph runs when the rewrite
   * does not apply or onnxruntime rejects it.
   */
  readonly liftConv1d?: boolean;
  /**
   * Stores a weight the graph reads both as written and transposed once, transposed
   * (tied-transpose.ts: a merged seq2seq decoder's tied embedding, which onnxruntime otherwise
   * holds three times); the original graph runs when the model has no such weight.
   */
  readonly shareTransposedWeights?: boolean;
  /**
   * A pool opens only its solo session (or one lane) and opens the other lanes when runs of the
   * model overlap, closing them after {@link LANE_IDLE_MS} without runs: memory follows the load
   * (the sequence-to-sequence recognisers, whose every member holds its own weights).
   */
  readonly lanesOnDemand?: boolean;
  /**
   * Runs without onnxruntime's memory arena on the tuned C heap, trimmed once the sessions idle
   * (native-heap.ts), so the peak of a run does not stay: for models whose runs take large,
   * short-lived working memory (a 20 s encoder's attention maps, a quantised decoder's
   * dequantised output projection). Other sessions keep the arena, whose reuse a run after a quiet
   * spell also gets (no page faults).
   */
  readonly shrinkWorkingMemory?: boolean;
}

/** How long a pool with lanes on demand keeps its lanes without runs. */
export const LANE_IDLE_MS = 30_000;

/**
 * Creates a session from a model file or bytes on the chosen provider (CPU fallback when a CUDA
 * session cannot be built). Rejects with onnxruntime's first error line when the model is broken.
 */
export async function createSession(model: string | Uint8Array, options: SessionOptions = {}): Promise<CreatedSession> {
  const provider = options.provider ?? device.provider;
  const parallel = options.parallel ?? 1;
  if (parallel <= 1 || provider !== "cpu" || options.intraOpThreads !== undefined)
    return openWorkerSession(model, options, provider, options.intraOpThreads ?? device.intraOpThreads);
  const shape = poolShape(parallel, device.intraOpThreads);
  if (options.lanesOnDemand) return openPoolOnDemand(model, options, provider, shape);
  const threads = Array.from({ length: shape.lanes }, () => shape.laneThreads);
  if (shape.soloThreads > 0) threads.push(shape.soloThreads);
  // Opened together: each member is its own worker, so the pool loads in about one session's time.
  const opened = await openWorkerSessions(model, options, provider, threads);
  const failed = opened.find((r): r is PromiseRejectedResult => r.status === "rejected");
  const sessions = opened.flatMap((r) => (r.status === "fulfilled" ? [r.value as Session] : []));
  if (failed) {
    await Promise.all(sessions.map((s) => s.release()));
    throw failed.reason;
  }
  const solo = shape.soloThreads > 0 ? sessions.pop() : undefined;
  const pool = new SessionPool(shape, sessions, solo);
  log.info("session pool opened", {
    // The pack-relative label, or the file name: logs name no host paths.
    model: options.label ?? (typeof model === "string" ? basename(model) : "model bytes"),
    lanes: shape.lanes,
    lane_threads: shape.laneThreads,
    solo_threads: shape.soloThreads,
    lane_lifted_convolutions: pool.liftedConvolutions,
  });
  return { session: pool, provider: pool.provider };
}

/** A pool that starts with its solo session (or one lane) and opens its lanes when runs overlap. */
async function openPoolOnDemand(
  model: string | Uint8Array,
  options: SessionOptions,
  provider: "cpu" | "cuda",
  shape: PoolShape,
): Promise<CreatedSession> {
  const solo = shape.soloThreads > 0;
  const { session: first } = await openWorkerSession(
    model,
    options,
    provider,
    solo ? shape.soloThreads : shape.laneThreads,
  );
  const name = options.label ?? (typeof model === "string" ? basename(model) : "model bytes");
  const open = async () => {
    const { session } = await openWorkerSession(model, options, provider, shape.laneThreads);
    log.info("session pool lane opened", { model: name, lane_threads: shape.laneThreads });
    return session;
  };
  const pool = new SessionPool(shape, solo ? [] : [first], solo ? first : undefined, { open, idleMs: LANE_IDLE_MS });
  log.info("session pool opened", {
    model: name,
    lanes: shape.lanes,
    lane_threads: shape.laneThreads,
    solo_threads: shape.soloThreads,
    lanes_on_demand: true,
  });
  return { session: pool, provider: pool.provider };
}

/** Opens one worker session with `intraOpThreads` threads. */
async function openWorkerSession(
  model: string | Uint8Array,
  options: SessionOptions,
  provider: "cpu" | "cuda",
  intraOpThreads: number,
): Promise<CreatedSession> {
  const [result] = await openWorkerSessions(model, options, provider, [intraOpThreads]);
  if (result!.status === "rejected") throw result!.reason;
  return { session: result!.value, provider: result!.value.provider };
}

/**
 * Opens one worker session per entry of `threads` (its intra-op threads), together; each counts
 * for its label's resident memory (session-memory.ts).
 */
async function openWorkerSessions(
  model: string | Uint8Array,
  options: SessionOptions,
  provider: "cpu" | "cuda",
  threads: readonly number[],
): Promise<PromiseSettledResult<WorkerSession>[]> {
  const [ort, libraryPath] = await Promise.all([loadOrt(), ortLibraryPath()]);
  const label = options.label ?? (typeof model === "string" ? model : "model bytes");
  // Only one-thread sessions: there the lifted Piper-shaped voices ran 13–17 % faster; on two
  // threads they gained nothing (−2 % to +2 %), so wider sessions keep the original graph.
  const lifts = (n: number) => options.liftConv1d === true && conv1dLiftAllowed && n === 1;
  // Without onnxruntime's arena where asked and the C heap is tuned to stand in for it (native-heap.ts).
  const arena = !(options.shrinkWorkingMemory === true && heapTuned());
  const shareTransposedWeights = options.shareTransposedWeights === true;
  const file = typeof model === "string" ? model : `${label} (${model.length} bytes)`;
  // The measured cost differs with the arena (a warm arena keeps its peak): measured apart.
  const open = async (intraOpThreads: number) => {
    // A file embedded in the compiled binary (/$bunfs/…) exists only for Bun's own file API; the
    // native runtime cannot open it, so it gets the bytes (read for each session: a pool that
    // opens lanes later does not keep a copy meanwhile).
    const source = typeof model === "string" && model.startsWith("/$bunfs/") ? await Bun.file(model).bytes() : model;
    const worker = new Worker(workerUrl());
    const session = new WorkerSession(worker, ort, label);
    try {
      const liftConv1d = lifts(intraOpThreads);
      await session.open({
        libraryPath,
        model: source,
        provider,
        intraOpThreads,
        liftConv1d,
        shareTransposedWeights,
        arena,
      });
    } catch (error) {
      worker.terminate();
      throw error;
    }
    worker.unref();
    return session;
  };
  // Sessions of one graph (a lifted lane's differs from the solo session's) are measured together.
  const results: PromiseSettledResult<WorkerSession>[] = [];
  const groups = Map.groupBy(threads.keys(), (i) => lifts(threads[i]!));
  for (const [lift, indices] of groups) {
    const group = await openMeasured(
      `${file}|${provider}|${lift}|${arena}|${shareTransposedWeights}`,
      indices.length,
      (k) => open(threads[indices[k]!]!),
      (session) => session.trimArena(),
    );
    for (const [k, result] of group.results.entries()) {
      results[indices[k]!] = result;
      if (result.status === "fulfilled") trackSession(result.value, label, group.bytes);
    }
  }
  return results;
}

/**
 * Runs `session` once on `feeds` and discards the result, so the first real request does not pay
 * for kernel selection, memory arena growth or CUDA graph capture. Returns the seconds it took.
 */
export async function warmUp(session: Session, feeds: Readonly<Record<string, Tensor>>): Promise<number> {
  const { seconds } = await session.runTimed(feeds);
  return seconds;
}
