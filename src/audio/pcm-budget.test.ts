import { describe, expect, test } from "bun:test";
import { AppError } from "../errors/taxonomy.ts";
import { PcmBudget } from "./pcm-budget.ts";

describe("PcmBudget", () => {
  test("does grant reservations up to the total and refuse the one that would overdraw it with 503", () => {
    const budget = new PcmBudget({
      totalBytes: 100,
      busyDetail: "Service busy, try again later",
      retryAfterSeconds: 3,
    });
    const a = budget.reserve(60);
    const b = budget.reserve(40);
    let refused: unknown;
    try {
      budget.reserve(1);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).status).toBe(503);
    expect((refused as AppError).detail).toBe("Service busy, try again later");
    expect((refused as AppError).retryAfter).toBe(3);
    a.release();
    a.release(); // a second release gives nothing back twice
    expect(budget.reserved).toBe(40);
    b.release();
    expect(budget.stats).toEqual({ reserved: 0, peak: 100, refused: 1, total: 100 });
  });
});
