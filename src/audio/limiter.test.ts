import { describe, expect, test } from "bun:test";
import { createLimiter } from "./limiter.ts";

describe("createLimiter", () => {
  test("does admit at most max holders when more ask at once", async () => {
    const limiter = createLimiter(2);
    let peak = 0;
    let running = 0;
    const job = async (): Promise<void> => {
      const release = await limiter.acquire();
      running += 1;
      peak = Math.max(peak, running);
      await Bun.sleep(5);
      running -= 1;
      release();
    };
    await Promise.all(Array.from({ length: 7 }, job));
    expect(peak).toBe(2);
    expect(limiter.active).toBe(0);
    expect(limiter.waiting).toBe(0);
  });

  test("does serve waiters in arrival order when slots free up", async () => {
    const limiter = createLimiter(1);
    const first = await limiter.acquire();
    const order: number[] = [];
    const waiters = [1, 2, 3].map((n) =>
      limiter.acquire().then((release) => {
        order.push(n);
        release();
      }),
    );
    expect(limiter.waiting).toBe(3);
    first();
    await Promise.all(waiters);
    expect(order).toEqual([1, 2, 3]);
  });

  test("does ignore a second release of the same slot", async () => {
    const limiter = createLimiter(1);
    const release = await limiter.acquire();
    release();
    release();
    expect(limiter.active).toBe(0);
    const again = await limiter.acquire();
    expect(limiter.active).toBe(1);
    again();
  });

  test("does leave the queue when the signal aborts while waiting", async () => {
    const limiter = createLimiter(1);
    const held = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error("gone"));
    await expect(waiting).rejects.toThrow("gone");
    expect(limiter.waiting).toBe(0);
    held();
    expect(limiter.active).toBe(0);
  });

  test("does admit waiters at once when the limit grows", async () => {
    const limiter = createLimiter(1);
    await limiter.acquire();
    const second = limiter.acquire();
    limiter.setMax(2);
    await second;
    expect(limiter.active).toBe(2);
  });

  test("does reject a limit below one", () => {
    expect(() => createLimiter(0)).toThrow(RangeError);
    expect(() => createLimiter(1.5)).toThrow(RangeError);
  });
});
