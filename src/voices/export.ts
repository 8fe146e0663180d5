/**
 * Cloned voices as a signed cluster file (`sawt voices export|import`): metadata and speaker
 * embeddings of every finished voice, so a voice cloned on one box speaks on all of them. The
 * owning keys must be on the importing box first (`sawt keys import`). Samples are not carried:
 * they were deleted after training (D18); the embedding is all synthesis needs.
 */
import type { Database } from "bun:sqlite";
import {
  CLUSTER_FORMAT,
  ClusterFileError,
  ClusterGenerations,
  signClusterFile,
  verifyClusterFile,
  type ClusterFile,
} from "../store/cluster-file.ts";
import { ClonedVoiceStore, type PortableVoice } from "./store.ts";

/** One voice in a cluster file. */
export interface ExportedVoice {
  readonly id: string;
  readonly key_id: string;
  readonly name: string;
  readonly status: "ready" | "failed";
  readonly reason: string | null;
  /** float32 little-endian embedding, base64; null for a failed voice. */
  readonly embedding: string | null;
  readonly created_at: number;
  readonly updated_at: number;
}

/** What an import changed. */
export interface VoiceImportResult {
  readonly generation: number;
  readonly added: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly removed: number;
}

/** Builds the signed export of every finished voice with the next generation. */
export function exportVoices(db: Database, secret: string, now = Date.now()): ClusterFile<ExportedVoice> {
  return db.transaction(() => {
    const items: ExportedVoice[] = new ClonedVoiceStore(db).portable().map((v) => ({
      id: v.id,
      key_id: v.keyId,
      name: v.name,
      status: v.status,
      reason: v.reason,
      embedding: v.embedding ? Buffer.from(v.embedding).toString("base64") : null,
      created_at: v.createdAt,
      updated_at: v.updatedAt,
    }));
    const generation = new ClusterGenerations(db).nextExport("voices");
    const createdAt = new Date(now).toISOString();
    return signClusterFile({ format: CLUSTER_FORMAT, kind: "voices", generation, created_at: createdAt, items }, secret);
  }).immediate();
}

function toPortable(raw: unknown, index: number): PortableVoice {
  const item = raw as Record<string, unknown>;
  const fail = (why: string): never => {
    throw new ClusterFileError(`voice #${index + 1}: ${why}`);
  };
  if (item === null || typeof item !== "object") fail("not an object");
  if (typeof item.id !== "string" || !/^voice_[A-Za-z0-9_-]{1,64}$/.test(item.id)) fail("id must look like voice_…");
  if (typeof item.key_id !== "string" || !/^[a-z2-7]{12}$/.test(item.key_id)) fail("key_id must be a key id");
  if (typeof item.name !== "string" || item.name.length < 1 || item.name.length > 200) fail("name must be 1-200 characters");
  if (item.status !== "ready" && item.status !== "failed") fail("status must be ready or failed");
  if (item.reason !== null && typeof item.reason !== "string") fail("reason must be text or null");
  if (!Number.isSafeInteger(item.created_at) || !Number.isSafeInteger(item.updated_at)) fail("times must be epoch milliseconds");
  let embedding: Uint8Array | null = null;
  if (item.embedding !== null) {
    if (typeof item.embedding !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(item.embedding)) fail("embedding must be base64");
    embedding = new Uint8Array(Buffer.from(item.embedding as string, "base64"));
    if (embedding.byteLength === 0 || embedding.byteLength % 4 !== 0) fail("embedding must hold float32 values");
  }
  if (item.status === "ready" && embedding === null) fail("a ready voice needs its embedding");
  return {
    id: item.id as string,
    keyId: item.key_id as string,
    name: item.name as string,
    status: item.status as PortableVoice["status"],
    reason: item.reason as string | null,
    embedding,
    createdAt: item.created_at as number,
    updatedAt: item.updated_at as number,
  };
}

/**
 * Verifies and applies a parsed voices file in one transaction. With `prune`, finished voices that
 * are not in the file are deleted (a voice deleted on the source box goes everywhere). Throws
 * {@link ClusterFileError} for a bad signature, an older generation, a malformed voice, a voice whose
 * key is not on this box, or a voice id owned by another key here.
 */
export function importVoices(db: Database, raw: unknown, secret: string, options: { prune?: boolean } = {}): VoiceImportResult {
  const body = verifyClusterFile(raw, "voices", secret);
  const voices = body.items.map(toPortable);
  return db.transaction((): VoiceImportResult => {
    new ClusterGenerations(db).recordImport("voices", body.generation);
    const keyExists = db.query("SELECT 1 FROM api_keys WHERE id = ?");
    const store = new ClonedVoiceStore(db);
    const counts = { added: 0, updated: 0, unchanged: 0 };
    for (const voice of voices) {
      if (!keyExists.get(voice.keyId)) {
        throw new ClusterFileError(`voice ${voice.id} belongs to key ${voice.keyId}, unknown here: import the keys first`);
      }
      const outcome = store.putPortable(voice);
      if (outcome === "conflict") {
        throw new ClusterFileError(`voice ${voice.id} belongs to another key here; nothing was imported`);
      }
      counts[outcome]++;
    }
    const removed = options.prune ? store.deleteAllExcept(new Set(voices.map((v) => v.id))) : 0;
    return { generation: body.generation, ...counts, removed };
  }).immediate();
}
