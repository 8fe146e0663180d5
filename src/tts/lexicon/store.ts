/**
 * Pronunciation lexicon entries in SQLite, private to the key that wrote them (as cloned voices
 * are): every read and write is scoped by the key id, so another key sees none of them.
 */
import type { Database } from "bun:sqlite";
import type { Dialect } from "../types.ts";

/** One entry: how a written form is to be said, optionally for one dialect only. */
export interface LexiconEntry {
  readonly grapheme: string;
  /** Text said instead (exactly one of alias and ipa). */
  readonly alias?: string;
  /** IPA said instead, by voices fed espeak phonemes; others read the grapheme. */
  readonly ipa?: string;
  /** Applies only when this dialect speaks; undefined for every dialect. */
  readonly dialect?: Dialect;
}

/** Bounds of one key's lexicon. */
export const LEXICON_LIMITS = { maxEntries: 500, maxGraphemeChars: 100, maxAliasChars: 300, maxIpaChars: 200 } as const;

interface Row {
  grapheme: string;
  dialect: string;
  alias: string | null;
  ipa: string | null;
}

function toEntry(row: Row): LexiconEntry {
  return {
    grapheme: row.grapheme,
    ...(row.alias !== null ? { alias: row.alias } : {}),
    ...(row.ipa !== null ? { ipa: row.ipa } : {}),
    ...(row.dialect !== "" ? { dialect: row.dialect as Dialect } : {}),
  };
}

/** The lexicon table. */
export class LexiconStore {
  constructor(private readonly db: Database) {}

  /** The key's entries, in grapheme order. */
  list(keyId: string): LexiconEntry[] {
    return this.db
      .query<Row, [string]>(
        "SELECT grapheme, dialect, alias, ipa FROM lexicon_entries WHERE key_id = ? ORDER BY grapheme, dialect",
      )
      .all(keyId)
      .map(toEntry);
  }

  /** How many entries the key would have after upserting `entries`. */
  countAfter(keyId: string, entries: readonly LexiconEntry[]): number {
    const existing = new Set(this.list(keyId).map((e) => `${e.grapheme}\u0000${e.dialect ?? ""}`));
    for (const e of entries) existing.add(`${e.grapheme}\u0000${e.dialect ?? ""}`);
    return existing.size;
  }

  /** Adds or replaces entries (one transaction). */
  upsert(keyId: string, entries: readonly LexiconEntry[]): void {
    const statement = this.db.query(
      `INSERT INTO lexicon_entries (key_id, grapheme, dialect, alias, ipa, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (key_id, grapheme, dialect) DO UPDATE SET alias = excluded.alias, ipa = excluded.ipa, updated_at = excluded.updated_at`,
    );
    const now = Date.now();
    this.db.transaction(() => {
      for (const e of entries) statement.run(keyId, e.grapheme, e.dialect ?? "", e.alias ?? null, e.ipa ?? null, now);
    })();
  }

  /** Deletes one grapheme's entries (one dialect's, when given), or all the key's; returns how many. */
  delete(keyId: string, grapheme?: string, dialect?: Dialect): number {
    if (grapheme === undefined) return this.db.query("DELETE FROM lexicon_entries WHERE key_id = ?").run(keyId).changes;
    if (dialect === undefined)
      return this.db.query("DELETE FROM lexicon_entries WHERE key_id = ? AND grapheme = ?").run(keyId, grapheme)
        .changes;
    return this.db
      .query("DELETE FROM lexicon_entries WHERE key_id = ? AND grapheme = ? AND dialect = ?")
      .run(keyId, grapheme, dialect).changes;
  }
}
