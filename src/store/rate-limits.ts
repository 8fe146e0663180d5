/**
 * Per-key request rate limit (D11): a sliding one-minute window of request timestamps kept in
 * SQLite, so counters survive a restart. Checking and recording happen in one IMMEDIATE
 * transaction, so concurrent requests (and processes) can never admit more than the limit.
 */
import type { Database } from "bun:sqlite";

const WINDOW_MS = 60_000;

/** Outcome of one admission check. */
export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the oldest request in the window leaves it (a slot frees). */
  readonly resetSeconds: number;
}

/** Sliding-window limiter over the `rate_events` table. */
export class RateLimiter {
  private readonly consumeTx: (keyId: string, limit: number, now: number) => RateDecision;

  constructor(private readonly db: Database) {
    const prune = db.query("DELETE FROM rate_events WHERE key_id = ? AND at_ms <= ?");
    const count = db.query("SELECT COUNT(*) AS n, MIN(at_ms) AS oldest FROM rate_events WHERE key_id = ?");
    const insert = db.query("INSERT INTO rate_events (key_id, at_ms) VALUES (?, ?)");
    this.consumeTx = db.transaction((keyId: string, limit: number, now: number): RateDecision => {
      prune.run(keyId, now - WINDOW_MS);
      const { n, oldest } = count.get(keyId) as { n: number; oldest: number | null };
      const resetSeconds = (first: number) => Math.max(1, Math.ceil((first + WINDOW_MS - now) / 1000));
      if (n >= limit) {
        return { allowed: false, limit, remaining: 0, resetSeconds: oldest === null ? 60 : resetSeconds(oldest) };
      }
      insert.run(keyId, now);
      return { allowed: true, limit, remaining: limit - n - 1, resetSeconds: resetSeconds(oldest ?? now) };
    }).immediate;
  }

  /** Records one request for `keyId` if the limit allows it. */
  consume(keyId: string, limit: number, now: number = Date.now()): RateDecision {
    return this.consumeTx(keyId, limit, now);
  }
}
