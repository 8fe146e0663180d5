/**
 * Each key's phrase list (phrase boosting) in SQLite, private to the key that wrote it as the TTS
 * lexicon is: every read and write is scoped by the key id, so another key sees none of it. Every
 * transcription of the key (REST, gRPC, realtime, jambonz) merges it with the request's hotwords.
 */
import type { Database } from "bun:sqlite";
import type { Hotword } from "../../core/asr.ts";
import { mergeHotwords } from "./hotwords.ts";

/** The phrase list table. */
export class PhraseStore {
  constructor(private readonly db: Database) {}

  /** The key's phrases, in phrase order. */
  list(keyId: string): Hotword[] {
    return this.db
      .query<Hotword, [string]>("SELECT phrase, boost FROM asr_phrases WHERE key_id = ? ORDER BY phrase")
      .all(keyId)
      .map((row) => ({ phrase: row.phrase, boost: row.boost }));
  }

  /** How many phrases the key would have after upserting `phrases`. */
  countAfter(keyId: string, phrases: readonly Hotword[]): number {
    const all = new Set(this.list(keyId).map((h) => h.phrase));
    for (const h of phrases) all.add(h.phrase);
    return all.size;
  }

  /** Adds phrases or replaces their boosts (one transaction). */
  upsert(keyId: string, phrases: readonly Hotword[]): void {
    const statement = this.db.query(
      `INSERT INTO asr_phrases (key_id, phrase, boost, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (key_id, phrase) DO UPDATE SET boost = excluded.boost, updated_at = excluded.updated_at`,
    );
    const now = Date.now();
    this.db.transaction(() => {
      for (const h of phrases) statement.run(keyId, h.phrase, h.boost, now);
    })();
  }

  /** Deletes one phrase, or all the key's; returns how many. */
  delete(keyId: string, phrase?: string): number {
    if (phrase === undefined) return this.db.query("DELETE FROM asr_phrases WHERE key_id = ?").run(keyId).changes;
    return this.db.query("DELETE FROM asr_phrases WHERE key_id = ? AND phrase = ?").run(keyId, phrase).changes;
  }
}

const stores = new WeakMap<Database, PhraseStore>();

/** The phrase store of `db` (one per database, so every door shares its prepared statements). */
export function phraseStoreOf(db: Database): PhraseStore {
  let store = stores.get(db);
  if (store === undefined) stores.set(db, (store = new PhraseStore(db)));
  return store;
}

/**
 * The hotwords a call of `keyId` decodes with: the request's merged with the key's stored list
 * (the request's boost wins for a phrase in both). Over the bound together → 422 naming `field`.
 */
export function callHotwords(
  db: Database,
  keyId: string | undefined,
  request: readonly Hotword[],
  field: string,
): Hotword[] {
  const stored = keyId === undefined ? [] : phraseStoreOf(db).list(keyId);
  return mergeHotwords(request, stored, field);
}
