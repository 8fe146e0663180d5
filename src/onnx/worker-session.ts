/**
 * A session in its own worker thread (see sessions.ts for why): the main thread's side of the
 * protocol in session-protocol.ts. Runs are numbered and answered in any order; the worker is
 * referenced only while runs are outstanding, so an offline run exits once its work is done.
 */
import type { Tensor } from "onnxruntime-node";
import { log } from "../log/logger.ts";
import { sessionWorkBegan, sessionWorkEnded, trimHeap, useWorkerTrim } from "./native-heap.ts";
import type { Ort } from "./ort.ts";
import { untrackSession } from "./session-memory.ts";
import type { HeldRun, HeldSession, ScanRequest, Session, TimedRun, ValueMetadata } from "./session.ts";
import type { FromWorker, ToWorker, WireScan, WireTensor } from "./session-protocol.ts";

/** Longest a release waits for runs in flight before it ends the worker anyway (see release()). */
const RUNS_ON_RELEASE_WAIT_MS = 30_000;
/** Longest a release waits for the worker to confirm it freed the session. */
const RELEASED_REPLY_WAIT_MS = 5000;
/** Longest an idle heap trim waits for a worker to trim its arena. */
const TRIM_REPLY_WAIT_MS = 1000;

/** Sessions whose worker is alive, for the idle heap trim (native-heap.ts). */
const live = new Set<WorkerSession>();
useWorkerTrim(async () => {
  await Promise.all([...live].map((session) => session.trimArena()));
});

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

/** A {@link Session} whose onnxruntime session lives in `worker` (session-worker.ts). */
export class WorkerSession implements Session {
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
    live.add(this);
  }

  /** Has the worker trim its thread's malloc arena (native-heap.ts); resolves when it has, or soon after. */
  trimArena(): Promise<void> {
    if (this.dead) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.worker.removeEventListener("message", listener);
        resolve();
      };
      const listener = (event: MessageEvent<FromWorker>) => event.data.op === "trimmed" && done();
      // Bounded: a worker busy with a run that began meanwhile answers after it.
      const timer = setTimeout(done, TRIM_REPLY_WAIT_MS);
      timer.unref();
      this.worker.addEventListener("message", listener);
      this.post({ op: "trim" });
    });
  }

  async open(request: Omit<Extract<ToWorker, { op: "open" }>, "op">): Promise<void> {
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
    this.post({ op: "open", ...request });
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
    // Idle for the heap only once released: the working memory between steps is the next step's.
    sessionWorkBegan();
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
        sessionWorkEnded();
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
      sessionWorkBegan();
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
        // The freed weights sit in this worker's malloc arena, whose top glibc gives back only on
        // a free in that arena under a low trim threshold (native-heap.ts): nudge it now, while the
        // thread lives, or a reloaded pack's memory would stay with the ended thread's arena.
        await trimHeap(() => this.trimArena());
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
    sessionWorkEnded();
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
    live.delete(this);
    untrackSession(this);
    for (const waiter of this.pending.values()) {
      sessionWorkEnded();
      waiter.reject(this.dead);
    }
    this.pending.clear();
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
