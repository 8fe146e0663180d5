/**
 * Cloned voices as a signed cluster file (`sawt voices export|import`): metadata and speaker
 * embeddings of every finished voice, so a voice cloned on one box speaks on all of them. The
 * owning keys must be on the importing box first (`sawt keys import`). Samples are not carried:
 * they were deleted after training (D18); the embedding is all synthesis needs.
 */
import { KEY_ID } from "../store/keys.ts";
import type { Database } from "bun:sqlite";
import * as v from "valibot";
import {
  ClusterFileError,
  ClusterGenerations,
  EpochMs,
  exportSigned,
  parseItems,
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
  const items = () =>
    new ClonedVoiceStore(db).portable().map(
      (voice): ExportedVoice => ({
        id: voice.id,
        key_id: voice.keyId,
        name: voice.name,
        status: voice.status,
        reason: voice.reason,
        embedding: voice.embedding ? Buffer.from(voice.embedding).toString("base64") : null,
        created_at: voice.createdAt,
        updated_at: voice.updatedAt,
      }),
    );
  return exportSigned(db, "voices", secret, items, now);
}

/** float32 little-endian embedding values, base64. */
const EmbeddingBase64 = v.pipe(
  v.string("must be base64"),
  v.regex(/^[A-Za-z0-9+/]*={0,2}$/, "must be base64"),
  v.transform((text) => new Uint8Array(Buffer.from(text, "base64"))),
  v.check((bytes) => bytes.byteLength > 0 && bytes.byteLength % 4 === 0, "must hold float32 values"),
);

/** One voice in a cluster file, as the store takes it. */
const PortableVoiceSchema = v.pipe(
  v.object({
    id: v.pipe(v.string(), v.regex(/^voice_[A-Za-z0-9_-]{1,64}$/, "must look like voice_…")),
    key_id: v.pipe(v.string(), v.regex(KEY_ID, "must be a key id")),
    name: v.pipe(v.string(), v.minLength(1, "must be 1-200 characters"), v.maxLength(200, "must be 1-200 characters")),
    status: v.picklist(["ready", "failed"], "must be ready or failed"),
    reason: v.nullable(v.string("must be text or null")),
    embedding: v.nullable(EmbeddingBase64),
    created_at: EpochMs,
    updated_at: EpochMs,
  }),
  v.check((voice) => voice.status !== "ready" || voice.embedding !== null, "a ready voice needs its embedding"),
  v.transform(
    (voice): PortableVoice => ({
      id: voice.id,
      keyId: voice.key_id,
      name: voice.name,
      status: voice.status,
      reason: voice.reason,
      embedding: voice.embedding,
      createdAt: voice.created_at,
      updatedAt: voice.updated_at,
    }),
  ),
);

/**
 * Verifies and applies a parsed voices file in one transaction. With `prune`, finished voices that
 * are not in the file are deleted (a voice deleted on the source box goes everywhere). Throws
 * {@link ClusterFileError} for a bad signature, an older generation, a malformed voice, a voice whose
 * key is not on this box, or a voice id owned by another key here.
 */
export function importVoices(
  db: Database,
  raw: unknown,
  secret: string,
  options: { prune?: boolean } = {},
): VoiceImportResult {
  const body = verifyClusterFile(raw, "voices", secret);
  const voices = parseItems(body.items, PortableVoiceSchema, "voice");
  return db
    .transaction((): VoiceImportResult => {
      new ClusterGenerations(db).recordImport("voices", body.generation);
      const keyExists = db.query("SELECT 1 FROM api_keys WHERE id = ?");
      const store = new ClonedVoiceStore(db);
      const counts = { added: 0, updated: 0, unchanged: 0 };
      for (const voice of voices) {
        if (!keyExists.get(voice.keyId)) {
          throw new ClusterFileError(
            `voice ${voice.id} belongs to key ${voice.keyId}, unknown here: import the keys first`,
          );
        }
        const outcome = store.putPortable(voice);
        if (outcome === "conflict") {
          throw new ClusterFileError(`voice ${voice.id} belongs to another key here; nothing was imported`);
        }
        counts[outcome]++;
      }
      const removed = options.prune ? store.deleteAllExcept(new Set(voices.map((v) => v.id))) : 0;
      return { generation: body.generation, ...counts, removed };
    })
    .immediate();
}
