/**
 * The calls' durable state (issue 41): each call's record and, once it ended, its transcript (both
 * sides), and the end-of-call webhook deliveries, in `<data_dir>/calls.db`. A database of its own,
 * opened by the store kit (which refuses a schema newer than this build), rather than tables of
 * the key store: transcripts are bulky, a retention sweep deletes in bulk, and the key store's
 * rate-limit writes on every request should not share its write lock with them; its schema
 * evolves with the calls alone, as jobs.db's does.
 *
 * A call id is the door's (an AudioSocket UUID, a chan_websocket channel id), which the PBX chose
 * and may reuse: a record is one call, and the newest record of an id is the one its transcript
 * route answers.
 */
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import type { Transcript } from "../core/asr.ts";
import { closeDatabase, openStore, type Schema } from "../store/database.ts";
import type { AttemptOutcome, DeliveryQueue, PendingDelivery } from "../webhooks/sender.ts";
import { newDelivery, nextDeliveryAt, recordAttempt } from "../webhooks/table.ts";

const MIGRATIONS: readonly string[] = [
  // 1: calls and their webhook deliveries (issue 41).
  `CREATE TABLE calls (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL,
     key_id TEXT NOT NULL,
     door TEXT NOT NULL,
     format TEXT NOT NULL,
     started_at INTEGER NOT NULL,
     ended_at INTEGER,
     reason TEXT,
     transcript TEXT
   ) STRICT;
   CREATE INDEX calls_by_id ON calls(id, seq);
   CREATE INDEX calls_by_end ON calls(ended_at);
   CREATE TABLE call_deliveries (
     id TEXT PRIMARY KEY,
     call_seq INTEGER NOT NULL REFERENCES calls(seq) ON DELETE CASCADE,
     callback_url TEXT NOT NULL,
     event TEXT NOT NULL,
     body TEXT NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
     attempts INTEGER NOT NULL,
     next_at INTEGER NOT NULL,
     last_error TEXT,
     created_at INTEGER NOT NULL,
     delivered_at INTEGER
   ) STRICT;
   CREATE INDEX call_deliveries_due ON call_deliveries(status, next_at);`,
];

/** The calls database's schema. */
export const CALL_SCHEMA: Schema = { name: "the calls database (calls.db)", migrations: MIGRATIONS };

/** A stored call, as the transcript route reads it. */
export interface StoredCall {
  readonly seq: number;
  readonly id: string;
  readonly key_id: string;
  readonly door: string;
  readonly format: string;
  readonly started_at: number;
  readonly ended_at: number | null;
  readonly reason: string | null;
  /** The transcript, once the call ended. */
  readonly transcript: Transcript | null;
}

/** A delivery as the sender takes it. */
export interface CallDelivery extends PendingDelivery {
  readonly call_seq: number;
}

/** Calls and their deliveries over one SQLite connection. */
export class CallStore implements DeliveryQueue<CallDelivery> {
  readonly db: Database;

  constructor(dataDir: string) {
    this.db = openStore(join(dataDir, "calls.db"), CALL_SCHEMA);
  }

  /** Calls the process was serving when it died end now, reason `shutdown`; returns how many. */
  endInterrupted(): number {
    return this.db.run("UPDATE calls SET ended_at = started_at, reason = 'shutdown' WHERE ended_at IS NULL").changes;
  }

  /** Records a call that started; returns its record number. */
  started(call: { id: string; keyId: string; door: string; format: string; startedAt: number }): number {
    const row = this.db
      .query("INSERT INTO calls (id, key_id, door, format, started_at) VALUES (?, ?, ?, ?, ?) RETURNING seq")
      .get(call.id, call.keyId, call.door, call.format, call.startedAt) as { seq: number };
    return row.seq;
  }

  /** Records a call's end and transcript, and its webhook when one is due, in one transaction. */
  ended(
    seq: number,
    end: { endedAt: number; reason: string; transcript: Transcript },
    webhook?: { url: string; event: string; body: Record<string, unknown> },
  ): void {
    this.db.transaction(() => {
      this.db.run("UPDATE calls SET ended_at = ?, reason = ?, transcript = ? WHERE seq = ?", [
        end.endedAt,
        end.reason,
        JSON.stringify(end.transcript),
        seq,
      ]);
      if (webhook) {
        const { id, body } = newDelivery(webhook.event, webhook.body);
        this.db.run(
          `INSERT INTO call_deliveries (id, call_seq, callback_url, event, body, status, attempts, next_at, created_at)
           VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
          [id, seq, webhook.url, webhook.event, body, Date.now(), Date.now()],
        );
      }
    })();
  }

  /** The newest record of call `id`, if it is kept. */
  latest(id: string): StoredCall | undefined {
    const row = this.db.query("SELECT * FROM calls WHERE id = ? ORDER BY seq DESC LIMIT 1").get(id) as
      | (Omit<StoredCall, "transcript"> & { transcript: string | null })
      | null;
    if (!row) return undefined;
    return { ...row, transcript: row.transcript === null ? null : (JSON.parse(row.transcript) as Transcript) };
  }

  /** Deletes calls that ended before `before` (epoch ms), their deliveries with them; returns how many. */
  sweep(before: number): number {
    return this.db.run("DELETE FROM calls WHERE ended_at IS NOT NULL AND ended_at < ?", [before]).changes;
  }

  dueDeliveries(now: number, limit: number): CallDelivery[] {
    return this.db
      .query("SELECT * FROM call_deliveries WHERE status = 'pending' AND next_at <= ? ORDER BY next_at LIMIT ?")
      .all(now, limit) as CallDelivery[];
  }

  nextDeliveryAt(): number | undefined {
    return nextDeliveryAt(this.db, "call_deliveries");
  }

  recordAttempt(id: string, outcome: AttemptOutcome): void {
    recordAttempt(this.db, "call_deliveries", id, outcome);
  }

  /** Every delivery of a call record (tests, diagnostics). */
  deliveries(seq: number): CallDelivery[] {
    return this.db
      .query("SELECT * FROM call_deliveries WHERE call_seq = ? ORDER BY created_at")
      .all(seq) as CallDelivery[];
  }

  close(): void {
    closeDatabase(this.db);
  }
}
