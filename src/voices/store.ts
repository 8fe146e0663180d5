/**
 * Cloned voices (D17) in SQLite. Every read and write is scoped by the owning key id, so a voice
 * is invisible to other keys (they get "not found", never "forbidden").
 */
import type { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";
import { CLONED_VOICE_PREFIX } from "../core/voices.ts";

/** Lifecycle of a cloned voice. */
export type ClonedVoiceStatus = "training" | "ready" | "failed";

/** A cloned voice as stored (the embedding stays internal). */
export interface ClonedVoice {
  readonly id: string;
  readonly keyId: string;
  readonly name: string;
  readonly status: ClonedVoiceStatus;
  /** Why training failed, when it did. */
  readonly reason: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

interface VoiceRow {
  id: string;
  key_id: string;
  name: string;
  status: ClonedVoiceStatus;
  reason: string | null;
  embedding: Uint8Array | null;
  created_at: number;
  updated_at: number;
}

/** A finished voice with its embedding, as a cluster file carries it (src/voices/export.ts). */
export interface PortableVoice extends ClonedVoice {
  readonly status: "ready" | "failed";
  /** The speaker embedding's float32 bytes (little-endian), null for a failed voice. */
  readonly embedding: Uint8Array | null;
}

function toVoice(row: VoiceRow): ClonedVoice {
  return {
    id: row.id,
    keyId: row.key_id,
    name: row.name,
    status: row.status,
    reason: row.reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** CRUD over `cloned_voices`, always scoped to one key. */
export class ClonedVoiceStore {
  constructor(private readonly db: Database) {}

  /** Creates a voice in `training` state. */
  create(keyId: string, name: string): ClonedVoice {
    const id = `${CLONED_VOICE_PREFIX}${randomBytes(9).toString("base64url")}`;
    const now = Date.now();
    this.db
      .query(
        "INSERT INTO cloned_voices (id, key_id, name, status, created_at, updated_at) VALUES (?, ?, ?, 'training', ?, ?)",
      )
      .run(id, keyId, name, now, now);
    return { id, keyId, name, status: "training", reason: null, createdAt: now, updatedAt: now };
  }

  /** The key's voice with this id, or undefined (also when another key owns it). */
  get(keyId: string, id: string): ClonedVoice | undefined {
    const row = this.db
      .query("SELECT * FROM cloned_voices WHERE id = ? AND key_id = ?")
      .get(id, keyId) as VoiceRow | null;
    return row ? toVoice(row) : undefined;
  }

  /** The embedding of a ready voice owned by the key. */
  embedding(keyId: string, id: string): Float32Array | undefined {
    const row = this.db
      .query("SELECT embedding FROM cloned_voices WHERE id = ? AND key_id = ? AND status = 'ready'")
      .get(id, keyId) as { embedding: Uint8Array | null } | null;
    if (!row?.embedding) return undefined;
    const copy = new Uint8Array(row.embedding);
    return new Float32Array(copy.buffer, 0, copy.byteLength / 4);
  }

  /** The key's voices, oldest first. */
  list(keyId: string): ClonedVoice[] {
    return (
      this.db.query("SELECT * FROM cloned_voices WHERE key_id = ? ORDER BY created_at, id").all(keyId) as VoiceRow[]
    ).map(toVoice);
  }

  /** Marks training done with its embedding. False when the voice is gone (deleted meanwhile). */
  markReady(id: string, embedding: Float32Array): boolean {
    const bytes = new Uint8Array(
      embedding.buffer.slice(embedding.byteOffset, embedding.byteOffset + embedding.byteLength),
    );
    return (
      this.db
        .query(
          "UPDATE cloned_voices SET status = 'ready', embedding = ?, reason = NULL, updated_at = ? WHERE id = ? AND status = 'training'",
        )
        .run(bytes, Date.now(), id).changes === 1
    );
  }

  /** Marks training failed with a client-safe reason. */
  markFailed(id: string, reason: string): boolean {
    return (
      this.db
        .query(
          "UPDATE cloned_voices SET status = 'failed', reason = ?, updated_at = ? WHERE id = ? AND status = 'training'",
        )
        .run(reason, Date.now(), id).changes === 1
    );
  }

  /** Deletes the key's voice; false when it has no such voice. */
  delete(keyId: string, id: string): boolean {
    return this.db.query("DELETE FROM cloned_voices WHERE id = ? AND key_id = ?").run(id, keyId).changes === 1;
  }

  /** Voices left in `training` by a crash: marked failed at start-up so none stays stuck. */
  failInterrupted(reason: string): number {
    return this.db
      .query("UPDATE cloned_voices SET status = 'failed', reason = ?, updated_at = ? WHERE status = 'training'")
      .run(reason, Date.now()).changes;
  }

  /** Every finished (ready or failed) voice of every key, with embeddings: the export's content. */
  portable(): PortableVoice[] {
    const rows = this.db
      .query("SELECT * FROM cloned_voices WHERE status != 'training' ORDER BY id")
      .all() as VoiceRow[];
    return rows.map((row) => ({
      ...toVoice(row),
      status: row.status as PortableVoice["status"],
      embedding: row.embedding,
    }));
  }

  /**
   * Adds or refreshes an imported voice: a known id takes the imported state when it is at least as
   * recent as ours. Returns what happened; "conflict" when the id belongs to another key here.
   */
  putPortable(voice: PortableVoice): "added" | "updated" | "unchanged" | "conflict" {
    const here = this.db.query("SELECT key_id, updated_at FROM cloned_voices WHERE id = ?").get(voice.id) as {
      key_id: string;
      updated_at: number;
    } | null;
    if (!here) {
      this.db
        .query(
          "INSERT INTO cloned_voices (id, key_id, name, status, reason, embedding, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .run(
          voice.id,
          voice.keyId,
          voice.name,
          voice.status,
          voice.reason,
          voice.embedding,
          voice.createdAt,
          voice.updatedAt,
        );
      return "added";
    }
    if (here.key_id !== voice.keyId) return "conflict";
    if (here.updated_at > voice.updatedAt) return "unchanged";
    const changes = this.db
      .query(
        `UPDATE cloned_voices SET name = ?, status = ?, reason = ?, embedding = ?, updated_at = ?
         WHERE id = ? AND NOT (name IS ? AND status IS ? AND reason IS ? AND embedding IS ? AND updated_at IS ?)`,
      )
      .run(
        voice.name,
        voice.status,
        voice.reason,
        voice.embedding,
        voice.updatedAt,
        voice.id,
        voice.name,
        voice.status,
        voice.reason,
        voice.embedding,
        voice.updatedAt,
      ).changes;
    return changes === 1 ? "updated" : "unchanged";
  }

  /** Deletes every voice whose id is not in `keep` (an import with --prune); returns how many. */
  deleteAllExcept(keep: ReadonlySet<string>): number {
    const ids = (
      this.db.query("SELECT id FROM cloned_voices WHERE status != 'training'").all() as { id: string }[]
    ).map((r) => r.id);
    const remove = this.db.query("DELETE FROM cloned_voices WHERE id = ?");
    let removed = 0;
    for (const id of ids) if (!keep.has(id)) removed += remove.run(id).changes;
    return removed;
  }
}
