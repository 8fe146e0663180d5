import { describe, expect, test } from "bun:test";
import { AppError } from "../errors/taxonomy.ts";
import { Admission } from "./admission.ts";

const gate = (options: Partial<ConstructorParameters<typeof Admission>[0]> = {}) =>
  new Admission({
    name: "tts",
    concurrency: 1,
    maxQueue: 2,
    queueTimeoutMs: 60_000,
    busyDetail: "busy",
    timeoutDetail: "timeout",
    ...options,
  });

/** A job that runs until released. */
function held() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  let started = false;
  return {
    job: async () => ((started = true), await done),
    release: () => release(),
    get started() {
      return started;
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("Admission", () => {
  test("does run jobs in arrival order when a slot frees", async () => {
    const a = gate({ maxQueue: 5 });
    const order: number[] = [];
    const first = held();
    const runs = [a.run(first.job), ...[1, 2, 3].map((n) => a.run(async () => void order.push(n)))];
    await settle();
    expect(a.stats).toMatchObject({ running: 1, queued: 3 });
    first.release();
    await Promise.all(runs);
    expect(order).toEqual([1, 2, 3]);
    expect(a.stats).toMatchObject({ running: 0, queued: 0, admitted: 4, completed: 4 });
  });

  test("does not let a newcomer jump the queue when a slot is handed over", async () => {
    const a = gate({ maxQueue: 5 });
    const first = held();
    let active = 0;
    let maxActive = 0;
    const order: string[] = [];
    const tracked = (name: string) => async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      order.push(name);
      await settle();
      active--;
    };
    const p1 = a.run(first.job);
    const p2 = a.run(tracked("queued"));
    await settle();
    // Arrive at the exact moment the queued job is handed the slot (its queue entry just left).
    let p3: Promise<void> | undefined;
    let spins = 0;
    const watch = () => {
      if (a.stats.queued === 0) p3 = a.run(tracked("newcomer"));
      else if (spins++ < 100_000) queueMicrotask(watch);
    };
    queueMicrotask(watch);
    first.release();
    await Promise.all([p1, p2]);
    await p3;
    expect(order).toEqual(["queued", "newcomer"]);
    expect(maxActive).toBe(1);
  });

  test("does reject with 503 and Retry-After when the queue is full", async () => {
    const a = gate({ maxQueue: 1 });
    const first = held();
    const p1 = a.run(first.job);
    const p2 = a.run(async () => "second");
    const error = await a.run(async () => "third").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(503);
    expect((error as AppError).detail).toBe("busy");
    expect((error as AppError).retryAfter).toBeGreaterThanOrEqual(1);
    expect(a.stats.rejectedBusy).toBe(1);
    first.release();
    expect(await p2).toBe("second");
    await p1;
  });

  test("does reject every waiter when maxQueue is 0 and a job runs", async () => {
    const a = gate({ maxQueue: 0 });
    const first = held();
    const p1 = a.run(first.job);
    expect(((await a.run(async () => 1).catch((e: unknown) => e)) as AppError).status).toBe(503);
    first.release();
    await p1;
  });

  test("does fail a waiter with 504 after its timeout and never run it", async () => {
    const a = gate({ queueTimeoutMs: 30 });
    const first = held();
    const p1 = a.run(first.job);
    let ran = false;
    const error = await a.run(async () => void (ran = true)).catch((e: unknown) => e);
    expect((error as AppError).status).toBe(504);
    expect((error as AppError).detail).toBe("timeout");
    expect(a.stats).toMatchObject({ timedOut: 1, queued: 0 });
    first.release();
    await p1;
    await settle();
    expect(ran).toBe(false);
  });

  test("does let a request shorten its timeout but never lengthen it", async () => {
    const a = gate({ queueTimeoutMs: 40 });
    const first = held();
    const p1 = a.run(first.job);
    const shortened = a.run(async () => 1, { timeoutMs: 5 }).catch((e: unknown) => e);
    const lengthened = a.run(async () => 2, { timeoutMs: 60_000 }).catch((e: unknown) => e);
    // The shortened one expires first, the "lengthened" one at the engine's limit.
    const first504 = await Promise.race([shortened.then(() => "shortened"), lengthened.then(() => "lengthened")]);
    expect(first504).toBe("shortened");
    expect(((await lengthened) as AppError).status).toBe(504);
    first.release();
    await p1;
  });

  test("does fail a waiter at hand-over when its deadline passed while the loop was busy", async () => {
    const a = gate({ queueTimeoutMs: 20 });
    let ran = false;
    const p1 = a.run(async () => {
      await settle(); // let the second request queue first
      const until = performance.now() + 60;
      while (performance.now() < until); // the event loop is blocked: the waiter's timer cannot fire
    });
    const p2 = a.run(async () => void (ran = true)).catch((e: unknown) => e);
    await p1;
    expect(((await p2) as AppError).status).toBe(504);
    expect(ran).toBe(false);
  });

  test("does drop a queued job whose caller went away and never run it", async () => {
    const a = gate();
    const first = held();
    const p1 = a.run(first.job);
    const controller = new AbortController();
    let ran = false;
    const p2 = a.run(async () => void (ran = true), { signal: controller.signal }).catch((e: unknown) => e);
    await settle();
    controller.abort(new Error("client went away"));
    expect(((await p2) as Error).message).toBe("client went away");
    expect(a.stats).toMatchObject({ abandoned: 1, queued: 0 });
    first.release();
    await p1;
    expect(ran).toBe(false);
    expect(a.stats).toMatchObject({ admitted: 1, completed: 1 });
  });

  test("does refuse a caller that is already gone", async () => {
    const a = gate();
    const error = await a.run(async () => 1, { signal: AbortSignal.abort(new Error("gone")) }).catch((e: unknown) => e);
    expect((error as Error).message).toBe("gone");
    expect(a.stats.admitted).toBe(0);
  });

  test("does resolve drain only when running and queued work is done", async () => {
    const a = gate();
    const first = held();
    const p1 = a.run(first.job);
    const p2 = a.run(async () => "queued");
    let drained = false;
    const drain = a.drain().then(() => (drained = true));
    await settle();
    expect(drained).toBe(false);
    first.release();
    expect(await p2).toBe("queued");
    await Promise.all([p1, drain]);
    expect(drained).toBe(true);
    expect(a.isDraining).toBe(true);
  });

  test("does report each admitted job's queue wait", async () => {
    const a = gate();
    const waits: number[] = [];
    a.onAdmitted((s) => waits.push(s));
    const first = held();
    const p1 = a.run(first.job);
    const p2 = a.run(async () => 1);
    await settle();
    first.release();
    await Promise.all([p1, p2]);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBe(0);
    expect(waits[1]).toBeGreaterThan(0);
  });
});

describe("Admission live load", () => {
  test("does report its running and waiting work on every change (the service pauses its jobs worker by it)", async () => {
    const a = gate({ concurrency: 1, maxQueue: 5 });
    const heard: Array<{ running: number; queued: number }> = [];
    const unwatch = a.watchLive((load) => heard.push(load));
    const first = held();
    const second = held();
    const runs = [a.run(first.job), a.run(second.job)];
    await settle();
    expect(a.liveLoad).toEqual({ running: 1, queued: 1 });
    first.release();
    await settle();
    second.release();
    await Promise.all(runs);
    unwatch();
    expect(heard).toEqual([
      { running: 1, queued: 0 },
      { running: 1, queued: 1 },
      { running: 1, queued: 0 },
      { running: 0, queued: 0 },
    ]);
    expect(a.liveLoad).toEqual({ running: 0, queued: 0 });
  });
});
