/**
 * What every store's deliveries table shares (the jobs' `job_deliveries`, the calls'
 * `call_deliveries`): the delivery id and stored body a queued delivery gets, and the
 * {@link DeliveryQueue} reads and writes that touch only the shared columns (`id`, `event`, `body`,
 * `status`, `attempts`, `next_at`, `last_error`, `created_at`, `delivered_at`). Each store keeps
 * its own table (and schema text, frozen in its migrations), its insert and its due query, which
 * differ in how a delivery names its owner and callback.
 */
import type { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";
import type { AttemptOutcome } from "./sender.ts";

/**
 * A new delivery's id (also its idempotency key: the same on every retry) and stored body: the
 * envelope (`id`, `type`, `created_at`) and the event's fields.
 */
export function newDelivery(event: string, fields: Record<string, unknown>): { id: string; body: string } {
  const id = `dlv_${randomBytes(12).toString("hex")}`;
  return { id, body: JSON.stringify({ id, type: event, created_at: Math.floor(Date.now() / 1000), ...fields }) };
}

/** When the table's next pending delivery is due (ms), if any. */
export function nextDeliveryAt(db: Database, table: string): number | undefined {
  const row = db.query(`SELECT MIN(next_at) AS at FROM ${table} WHERE status = 'pending'`).get() as {
    at: number | null;
  };
  return row.at ?? undefined;
}

/** Records one attempt of a delivery in the table. */
export function recordAttempt(db: Database, table: string, id: string, outcome: AttemptOutcome): void {
  db.run(
    `UPDATE ${table} SET status = ?, attempts = attempts + 1, next_at = COALESCE(?, next_at), last_error = ?,
     delivered_at = CASE WHEN ? = 'delivered' THEN ? ELSE delivered_at END WHERE id = ?`,
    [outcome.status, outcome.nextAt ?? null, outcome.error ?? null, outcome.status, Date.now(), id],
  );
}
