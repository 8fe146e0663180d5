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
import { isCompiledBinary, loadOrt, ortLibraryPath, type Ort } from "./ort.ts";
import { poolShape, SessionPool } from "./session-pool.ts";
import type { HeldRun, HeldSession, ScanRequest, Session, TimedRun, ValueMetadata } from "./session.ts";
import type { FromWorker, ToWorker, WireScan, WireTensor } from "./session-protocol.ts";

export type { HeldRun, HeldSession, ScanRequest, Session, TimedRun, ValueMetadata } from "./session.ts";

/** A created session and where it actually runs. */
export interface CreatedSession {
  readonly session: Session;
  readonly provider: "cpu" | "cuda";
}

/** Longest a release waits for runs in flight before it ends the worker anyway (see release()). */
const RUNS_ON_RELEASE_WAIT_MS = 30_000;
/** Longest a release waits for the worker to confirm it freed the session. */
const RELEASED_REPLY_WAIT_MS = 5000;

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

function toWire(tensor: Tensor): WireTensor {
  return { type: tensor.type, data: tensor.data as ArrayBufferView | string[], dims: [...tensor.dims] };
}

function wireFeeds(feeds: Readonly<Record<string, Tensor>>): Record<string, WireTensor> {
  const wire: Record<string, WireTensor> = {};
  for (const [name, tensor] of Object.entries(feeds)) wire[name] = toWire(tensor);
  return wire;
}

/** The distinct buffers under the feeds `names` (a HeldRun's `transfer`: they move to the worker). */
function feedBuffers(feeds: Readonly<Record<string, Tensor>>, names: readonly string[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const name of names) {
    const data = feeds[name]?.data as unknown;
    if (ArrayBuffer.isView(data) && data.buffer instanceof ArrayBuffer) buffers.add(data.buffer);
  }
  return [...buffers];
}

class WorkerSession implements Session {
  private nextId = 1;
  private nextHold = 1;
  private readonly pending = new Map<number, { resolve: (m: TimedRun) => void; reject: (e: Error) => void }>();
  private dead: Error | undefined;
  private releasing: Promise<void> | undefined;
  private readonly idleWaiters: Array<() => void> = [];
  inputNames: readonly string[] = [];
  outputNames: readonly string[] = [];
  inputMetadata: readonly ValueMetadata[] = [];
  outputMetadata: readonly ValueMetadata[] = [];
  provider: "cpu" | "cuda" = "cpu";
  liftedConvolutions = 0;

  constructor(
    private readonly worker: Worker,
    private readonly ort: Ort,
    private readonly label: string,
  ) {
    worker.addEventListener("message", (event: MessageEvent<FromWorker>) => this.onMessage(event.data));
    worker.addEventListener("error", (event: ErrorEvent) =>
      this.die(new Error(`session worker for ${label} failed: ${event.message}`)),
    );
    worker.addEventListener("close", () => this.die(new Error(`session for ${label} is released`)));
  }

  async open(
    libraryPath: string | undefined,
    model: string | Uint8Array,
    provider: "cpu" | "cuda",
    intraOpThreads: number,
    liftConv1d: boolean,
  ): Promise<void> {
    const opened = new Promise<void>((resolve, reject) => {
      const listener = (event: MessageEvent<FromWorker>) => {
        const m = event.data;
        if (m.op === "opened") {
          Object.assign(this, {
            inputNames: m.inputNames,
            outputNames: m.outputNames,
            inputMetadata: m.inputMetadata,
            outputMetadata: m.outputMetadata,
            provider: m.provider,
            liftedConvolutions: m.lift && "convolutions" in m.lift ? m.lift.convolutions : 0,
          });
          if (m.fallback) log.warn("cuda session failed, using cpu", { model: this.label, reason: m.fallback });
          // A graph with nothing to lift is the common case; one whose lift failed runs slower than it could.
          if (m.lift && "failed" in m.lift && m.lift.failed)
            log.warn("convolutions not lifted", { model: this.label, reason: m.lift.skipped });
          resolve();
        } else if (m.op === "open-failed") reject(new Error(m.message));
        else return;
        this.worker.removeEventListener("message", listener);
      };
      this.worker.addEventListener("message", listener);
      this.worker.addEventListener("error", (event: ErrorEvent) => reject(new Error(event.message)), { once: true });
    });
    this.post({ op: "open", libraryPath, model, provider, intraOpThreads, liftConv1d });
    await opened;
  }

  run(feeds: Readonly<Record<string, Tensor>>, fetches?: readonly string[]): Promise<Record<string, Tensor>> {
    return this.runTimed(feeds, fetches).then((r) => r.outputs);
  }

  runTimed(feeds: Readonly<Record<string, Tensor>>, fetches?: readonly string[]): Promise<TimedRun> {
    return this.send((id) => ({ op: "run", id, feeds: wireFeeds(feeds), fetches }));
  }

  runScan(request: ScanRequest): Promise<Record<string, Tensor>> {
    if (request.step.data.length !== request.steps * request.step.dims.reduce((a, b) => a * b, 1)) {
      return Promise.reject(new RangeError("scan step data does not hold steps × dims values"));
    }
    const wire: WireScan = { ...request, feeds: wireFeeds(request.feeds) };
    return this.send((id) => ({ op: "scan", id, ...wire })).then((r) => r.outputs);
  }

  async hold(): Promise<HeldSession> {
    if (this.dead) throw this.dead;
    if (this.releasing) throw new Error(`session for ${this.label} is released`);
    const hold = this.nextHold++;
    let released = false;
    return {
      run: (request: HeldRun) => {
        if (released) return Promise.reject(new Error(`a released hold on ${this.label} was run`));
        const { feeds, fetch, keep = {} } = request;
        const message = (id: number): ToWorker => ({ op: "held-run", id, hold, feeds: wireFeeds(feeds), fetch, keep });
        return this.send(message, feedBuffers(feeds, request.transfer ?? [])).then((r) => r.outputs);
      },
      release: () => {
        if (released) return;
        released = true;
        if (!this.dead) this.post({ op: "unhold", hold });
      },
    };
  }

  private send(message: (id: number) => ToWorker, transfer: ArrayBuffer[] = []): Promise<TimedRun> {
    if (this.dead) return Promise.reject(this.dead);
    if (this.releasing) return Promise.reject(new Error(`session for ${this.label} is released`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Keep the process alive only while work is outstanding (offline CLI runs await it).
      this.worker.ref();
      this.post(message(id), transfer);
    });
  }

  release(): Promise<void> {
    this.releasing ??= (async () => {
      // Runs still in flight (a pool's background warm-up, a request whose client left, a reload
      // right after a request) end first: terminating the worker inside onnxruntime's run aborts
      // the whole process ("terminate called after throwing an instance of 'Napi::Error'").
      // A run always ends; the wait is bounded all the same.
      if (!this.dead) await this.idle(RUNS_ON_RELEASE_WAIT_MS);
      if (!this.dead && this.pending.size === 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const done = new Promise<void>((resolve) => {
          const listener = (event: MessageEvent<FromWorker>) => event.data.op === "released" && resolve();
          this.worker.addEventListener("message", listener);
          this.worker.addEventListener("close", () => resolve(), { once: true });
          // Cleared once answered: a pending timer would hold an offline CLI run open for its length.
          timer = setTimeout(resolve, RELEASED_REPLY_WAIT_MS);
        });
        this.post({ op: "release" });
        await done;
        clearTimeout(timer);
      }
      this.die(new Error(`session for ${this.label} is released`));
      this.worker.terminate();
    })();
    return this.releasing;
  }

  private post(message: ToWorker, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(message, transfer);
  }

  /** Resolves once no run is in flight, or after `timeoutMs` (a timer that keeps nothing alive after). */
  private idle(timeoutMs: number): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private onMessage(m: FromWorker): void {
    if (m.op !== "result" && m.op !== "run-failed") return;
    const waiter = this.pending.get(m.id);
    if (!waiter) return;
    this.pending.delete(m.id);
    if (this.pending.size === 0) {
      this.worker.unref();
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
    if (m.op === "run-failed") return waiter.reject(new Error(m.message));
    const outputs: Record<string, Tensor> = {};
    for (const [name, t] of Object.entries(m.outputs))
      outputs[name] = new this.ort.Tensor(t.type as "float32", t.data as Float32Array, t.dims);
    waiter.resolve({ outputs, seconds: m.seconds });
  }

  private die(error: Error): void {
    this.dead ??= error;
    for (const waiter of this.pending.values()) waiter.reject(this.dead);
    this.pending.clear();
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
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
