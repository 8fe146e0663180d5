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
import { isCompiledBinary, loadOrt, ortLibraryPath } from "./ort.ts";
import { poolShape, SessionPool } from "./session-pool.ts";
import type { Session } from "./session.ts";
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
}

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
  const threads = Array.from({ length: shape.lanes }, () => shape.laneThreads);
  if (shape.soloThreads > 0) threads.push(shape.soloThreads);
  // Opened together: each member is its own worker, so the pool loads in about one session's time.
  const opened = await Promise.allSettled(threads.map((n) => openWorkerSession(model, options, provider, n)));
  const failed = opened.find((r): r is PromiseRejectedResult => r.status === "rejected");
  const sessions = opened.flatMap((r) => (r.status === "fulfilled" ? [r.value.session] : []));
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

async function openWorkerSession(
  model: string | Uint8Array,
  options: SessionOptions,
  provider: "cpu" | "cuda",
  intraOpThreads: number,
): Promise<CreatedSession> {
  const [ort, libraryPath] = await Promise.all([loadOrt(), ortLibraryPath()]);
  const label = options.label ?? (typeof model === "string" ? model : "model bytes");
  const worker = new Worker(workerUrl());
  const session = new WorkerSession(worker, ort, label);
  try {
    // Only one-thread sessions: there the lifted Piper-shaped voices ran 13–17 % faster; on two
    // threads they gained nothing (−2 % to +2 %), so wider sessions keep the original graph.
    const lift = options.liftConv1d === true && conv1dLiftAllowed && intraOpThreads === 1;
    await session.open(libraryPath, model, provider, intraOpThreads, lift);
  } catch (error) {
    worker.terminate();
    throw error;
  }
  worker.unref();
  return { session, provider: session.provider };
}

/**
 * Runs `session` once on `feeds` and discards the result, so the first real request does not pay
 * for kernel selection, memory arena growth or CUDA graph capture. Returns the seconds it took.
 */
export async function warmUp(session: Session, feeds: Readonly<Record<string, Tensor>>): Promise<number> {
  const { seconds } = await session.runTimed(feeds);
  return seconds;
}
