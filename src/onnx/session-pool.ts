/**
 * A pool of sessions of one model, so that parallel requests use every core (issue #19).
 *
 * One onnxruntime session runs one `run` at a time in its worker; giving it every core as
 * intra-op threads makes a lone run fast but serialises concurrent ones, and two runs sharing
 * cores through one big thread pool scale worse than two small sessions (measured on the
 * Piper-medium-shaped benchmark voice: two 1-thread sessions gave 1.2–1.3× the throughput of one
 * 2-thread session). So a pool holds `parallel` *lanes*, each with cores ÷ parallel threads, and
 * one *solo* session with all the cores: a run that arrives while nothing else of this model
 * runs, and none has run alongside another lately, goes to the solo session (a single request
 * still gets every core: about 145 vs 200 ms a sentence on that voice); any other run goes to the
 * least busy lane.
 *
 * "Lately" matters under steady load: two clients' runs now and then both end before either sends
 * its next, and sending the next to the solo session while the other lands on a lane puts three
 * threads on two cores for a whole run. Likewise for a burst after quiet: requests of a burst
 * arrive a few milliseconds apart (measured on bursts of six requests from two clients: 8.75 req/s
 * as solo + lane, 9.22 on lanes alone). In a server the admission count tells at once: with
 * another admitted job running (its request still in the front-end, or another model's) a lone
 * run takes a lane, alone it takes the solo session without delay. Where nothing runs under
 * admission (an offline CLI run, a test) a run that finds the pool idle for a while waits up to
 * {@link HOLD_MS} for others of its burst instead; one that joins in that time sends both to lanes
 * at once. Back-to-back runs of one caller (a decoder's steps, a client's next sentence) never wait.
 *
 * A decoder's steps go to one member from first to last (a {@link SessionPool.hold}: that
 * member's worker keeps the decode's tensors); the hold counts as one run for the rule above.
 *
 * Each member holds its own weights and working memory: about 157 MB per extra session for the
 * 60 MB benchmark voice (docs/models.md § Session pools; re-measured by throughput.bench.ts), and
 * onnxruntime-node cannot share weights between sessions. A pool with lanes on demand
 * ({@link LanesOnDemand}: the sequence-to-sequence recognisers) therefore starts with its solo
 * session only, opens the lanes when runs overlap (serving meanwhile with what it has) and closes
 * them after a quiet spell, so an idle server holds one copy.
 * Members have never run when the pool is built; the first run a member gets pays for kernel
 * selection and arena growth. The pool repeats the first run it serves on the members that have
 * not run yet, in the background once that run is answered, so the first concurrent requests
 * find warm lanes.
 */
import type { Tensor } from "onnxruntime-node";
import { runningAdmittedJobs } from "../serving/admission.ts";
import type { HeldSession, ScanRequest, Session, TimedRun, ValueMetadata } from "./session.ts";

/** How long a run that finds the pool idle waits for others of its burst before taking the solo session. */
const HOLD_MS = 4;
/** Idle time after which a run holds; runs closer to the previous one (one caller's next step) go straight on. */
const IDLE_BEFORE_HOLD_MS = 50;

/** Shortest time after overlapping runs during which a lone run still goes to a lane. */
const OVERLAP_MEMORY_MIN_MS = 200;

/** How a pool's members are sized (for health details, logs and tests). */
export interface PoolShape {
  /** Sessions used when runs overlap. */
  readonly lanes: number;
  /** Intra-op threads of each lane. */
  readonly laneThreads: number;
  /** Intra-op threads of the solo session, or 0 when the pool has none (lanes already get every thread). */
  readonly soloThreads: number;
}

/**
 * How to size a pool for `parallel` concurrent runs on `threads` intra-op threads in all: lanes
 * of max(1, ⌊threads ÷ parallel⌋) threads, and a solo session with all `threads` when that is
 * more than a lane has.
 */
export function poolShape(parallel: number, threads: number): PoolShape {
  const lanes = Math.max(1, Math.floor(parallel));
  const laneThreads = Math.max(1, Math.floor(threads / lanes));
  return { lanes, laneThreads, soloThreads: lanes > 1 && laneThreads < threads ? threads : 0 };
}

/** How a pool opens lanes when runs overlap and closes them when it idles (memory follows the load). */
export interface LanesOnDemand {
  /** Opens one lane (with the shape's lane threads). */
  open(): Promise<Session>;
  /** Idle time after which the lanes are closed again. */
  readonly idleMs: number;
}

/** One member's share of a pool's work (see {@link SessionPool.usage}). */
export interface MemberUsage {
  readonly role: "solo" | "lane";
  readonly threads: number;
  /** Runs and scans dispatched to it (warm-up repeats not counted). */
  readonly runs: number;
  /** Whether it has run (a dispatched run or the pool's warm-up repeat). */
  readonly warm: boolean;
}

/** Sessions of one model used as one {@link Session}; see the file comment for the dispatch rule. */
export class SessionPool implements Session {
  private readonly busy = new Map<Session, number>();
  private readonly dispatched = new Map<Session, number>();
  private running = 0;
  /** When runs last overlapped (performance.now()), and a smoothed run time in ms. */
  private lastOverlapMs = Number.NEGATIVE_INFINITY;
  private runMs = 0;
  /** When the last run ended, and the burst window a lone run is holding open (see file comment). */
  private lastEndMs = Number.NEGATIVE_INFINITY;
  private holding: { join(): void } | undefined;
  private readonly cold: Set<Session>;
  private readonly warmed = new Set<Session>();
  private warming = false;
  private readonly lanes: Session[];
  /** Lanes being opened on demand, and the timer that closes them once the pool idles. */
  private growing: Promise<void> | undefined;
  private shrinkTimer: ReturnType<typeof setTimeout> | undefined;
  private released = false;

  /**
   * `lanes` and `solo` (if the shape has one) were opened with `shape`'s threads. Without
   * `onDemand` every lane is given; with it the pool starts from what is given (the solo session,
   * or one lane) and opens the other lanes when runs overlap, closing them again once it has been
   * idle for `idleMs` (see {@link LanesOnDemand}).
   */
  constructor(
    readonly shape: PoolShape,
    lanes: readonly Session[],
    private readonly solo: Session | undefined,
    private readonly onDemand?: LanesOnDemand,
  ) {
    if (lanes.length === 0 && (solo === undefined || onDemand === undefined))
      throw new RangeError("a session pool needs at least one lane");
    this.lanes = [...lanes];
    this.cold = new Set(this.members());
  }

  /** The member the pool's names and metadata are read from. */
  private get first(): Session {
    return this.solo ?? this.lanes[0]!;
  }

  get inputNames(): readonly string[] {
    return this.first.inputNames;
  }
  get outputNames(): readonly string[] {
    return this.first.outputNames;
  }
  get inputMetadata(): readonly ValueMetadata[] {
    return this.first.inputMetadata;
  }
  get outputMetadata(): readonly ValueMetadata[] {
    return this.first.outputMetadata;
  }
  get liftedConvolutions(): number {
    return (this.lanes[0] ?? this.first).liftedConvolutions;
  }

  get provider(): "cpu" | "cuda" {
    return this.first.provider;
  }

  /** Every session of the pool, solo first. */
  members(): Session[] {
    return this.solo ? [this.solo, ...this.lanes] : [...this.lanes];
  }

  /** Runs dispatched to each member so far, solo first. */
  usage(): MemberUsage[] {
    return this.members().map((member) => ({
      role: member === this.solo ? "solo" : "lane",
      threads: member === this.solo ? this.shape.soloThreads : this.shape.laneThreads,
      runs: this.dispatched.get(member) ?? 0,
      warm: this.warmed.has(member),
    }));
  }

  run(feeds: Readonly<Record<string, Tensor>>, fetches?: readonly string[]): Promise<Record<string, Tensor>> {
    return this.runTimed(feeds, fetches).then((r) => r.outputs);
  }

  runTimed(feeds: Readonly<Record<string, Tensor>>, fetches?: readonly string[]): Promise<TimedRun> {
    const result = this.dispatch((member) => member.runTimed(feeds, fetches));
    if (this.cold.size > 0 && !this.warming) {
      this.warming = true;
      // Repeat this run on the members that never ran, after it is answered (see file comment).
      void result.then(
        () => this.warmCold(feeds, fetches),
        () => (this.warming = false),
      );
    }
    return result;
  }

  runScan(request: ScanRequest): Promise<Record<string, Tensor>> {
    return this.dispatch((member) => member.runScan(request));
  }

  /**
   * Holds the member a run would go to now, busy until the hold is released: a decoder's steps
   * stay on the member whose worker keeps their tensors (one hold is one run for the dispatch rule).
   */
  async hold(): Promise<HeldSession> {
    const chosen = this.choose();
    const member = chosen instanceof Promise ? await chosen : chosen;
    const started = performance.now();
    let inner: HeldSession;
    try {
      inner = await member.hold();
    } catch (error) {
      this.finish(member, started);
      throw error;
    }
    let released = false;
    return {
      run: async (request) => {
        const outputs = await inner.run(request);
        this.warmed.add(member);
        return outputs;
      },
      release: () => {
        if (released) return;
        released = true;
        inner.release();
        this.finish(member, started);
      },
    };
  }

  async release(): Promise<void> {
    this.released = true;
    clearTimeout(this.shrinkTimer);
    await this.growing;
    await Promise.all(this.members().map((member) => member.release()));
  }

  /** Opens the missing lanes in the background (once at a time), when lanes come on demand. */
  private grow(): void {
    if (!this.onDemand || this.growing || this.released || this.lanes.length >= this.shape.lanes) return;
    const { open } = this.onDemand;
    const missing = this.shape.lanes - this.lanes.length;
    this.growing = (async () => {
      const opened = await Promise.allSettled(Array.from({ length: missing }, () => open()));
      for (const result of opened) {
        if (result.status === "rejected") continue; // the pool serves on with what it has
        if (this.released) await result.value.release();
        else this.lanes.push(result.value);
      }
      this.growing = undefined;
    })();
  }

  /** Closes the lanes opened on demand once nothing has run for `idleMs` (the solo session, or one lane, stays). */
  private shrinkWhenIdle(): void {
    if (!this.onDemand || this.running > 0) return;
    clearTimeout(this.shrinkTimer);
    this.shrinkTimer = setTimeout(() => {
      if (this.running > 0 || this.growing || this.released) return;
      const closing = this.lanes.splice(this.solo ? 0 : 1);
      for (const lane of closing) {
        this.cold.delete(lane);
        void lane.release();
      }
    }, this.onDemand.idleMs);
    // An idle pool's timer never keeps an offline run's process alive.
    this.shrinkTimer.unref();
  }

  /**
   * The member the next run goes to, already counted as busy: the solo session when nothing of
   * this model runs or ran alongside another lately and no other admitted job runs (where nothing
   * is admitted: no other run joins within the hold), else the least busy lane.
   */
  private choose(): Session | Promise<Session> {
    if (this.holding) {
      // The burst is real: the holder takes a lane now instead of waiting out the hold, and this
      // run the next least busy one.
      this.holding.join();
      this.lastOverlapMs = performance.now();
      return this.take(this.leastBusyLane());
    }
    const now = performance.now();
    if (!this.solo || this.running > 0 || now - this.lastOverlapMs <= this.overlapMemoryMs())
      return this.take(this.leastBusyLane());
    // In a server every request runs under admission: other admitted jobs are company on its way
    // (still in the front-end, or on another model), a single one is this request alone. Either
    // way nothing is gained by waiting.
    const admitted = runningAdmittedJobs();
    if (admitted > 1) return this.take(this.leastBusyLane());
    if (admitted === 1 || now - this.lastEndMs < IDLE_BEFORE_HOLD_MS) return this.take(this.solo);
    return new Promise<Session>((resolve) => {
      const timer = setTimeout(() => {
        this.holding = undefined;
        resolve(this.take(this.solo!));
      }, HOLD_MS);
      this.holding = {
        join: () => {
          clearTimeout(timer);
          this.holding = undefined;
          resolve(this.take(this.leastBusyLane()));
        },
      };
    });
  }

  private leastBusyLane(): Session {
    // Runs overlap now: the lanes are wanted (on demand they open meanwhile; the solo session serves).
    if (this.running > 0 || this.holding) this.grow();
    if (this.lanes.length === 0) return this.solo!;
    let best = this.lanes[0]!;
    for (const lane of this.lanes) if ((this.busy.get(lane) ?? 0) < (this.busy.get(best) ?? 0)) best = lane;
    return best;
  }

  /** Counts a run on `member` from the moment it is chosen, so the next choice sees it busy. */
  private take(member: Session): Session {
    clearTimeout(this.shrinkTimer);
    this.cold.delete(member);
    this.dispatched.set(member, (this.dispatched.get(member) ?? 0) + 1);
    this.busy.set(member, (this.busy.get(member) ?? 0) + 1);
    this.running++;
    if (this.running > 1) this.lastOverlapMs = performance.now();
    return member;
  }

  private async dispatch<T>(call: (member: Session) => Promise<T>): Promise<T> {
    // Decided synchronously unless holding: runs dispatched in the same tick must see each other.
    const chosen = this.choose();
    const member = chosen instanceof Promise ? await chosen : chosen;
    const started = performance.now();
    try {
      const result = await call(member);
      this.warmed.add(member);
      return result;
    } finally {
      this.finish(member, started);
    }
  }

  /** Counts the end of a run (or hold) on `member` that began at `started`. */
  private finish(member: Session, started: number): void {
    const ended = performance.now();
    this.lastEndMs = ended;
    if (this.running > 1) this.lastOverlapMs = ended;
    this.runMs = this.runMs === 0 ? ended - started : 0.8 * this.runMs + 0.2 * (ended - started);
    this.running--;
    this.busy.set(member, this.busy.get(member)! - 1);
    this.shrinkWhenIdle();
  }

  /** How long after runs overlapped the pool still treats itself as loaded: two run times, at least 200 ms. */
  overlapMemoryMs(): number {
    return Math.max(OVERLAP_MEMORY_MIN_MS, 2 * this.runMs);
  }

  /** Runs `feeds` once on each member that has not run yet, one after another; failures are ignored. */
  private async warmCold(feeds: Readonly<Record<string, Tensor>>, fetches?: readonly string[]): Promise<void> {
    for (const member of [...this.cold]) {
      if (!this.cold.delete(member)) continue;
      this.busy.set(member, (this.busy.get(member) ?? 0) + 1);
      try {
        await member.runTimed(feeds, fetches);
        this.warmed.add(member);
      } catch {
        // A released pool or a failing member: the run that needs it reports the error itself.
      } finally {
        this.busy.set(member, this.busy.get(member)! - 1);
      }
    }
    this.warming = false;
  }
}
