/**
 * API keys as a signed cluster file (`sawt keys export|import`): every key as its SHA-256 digest,
 * never its secret, so the file lets another box verify the same keys without anyone re-issuing
 * them, and cannot be turned back into a usable key. Revocations travel with the file and stick:
 * an import never un-revokes a key this box has revoked.
 */
import { KEY_ID } from "./keys.ts";
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
} from "./cluster-file.ts";

/** One key in a cluster file: `digest` is the SHA-256 of the key's secret part, hex. */
const ExportedKeySchema = v.object({
  id: v.pipe(v.string(), v.regex(KEY_ID, "must be 12 base32 characters")),
  name: v.pipe(v.string(), v.minLength(1, "must be 1-100 characters"), v.maxLength(100, "must be 1-100 characters")),
  digest: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, "must be 64 hex characters")),
  rpm: v.pipe(v.number(), v.safeInteger("must be a positive integer"), v.minValue(1, "must be a positive integer")),
  admin: v.boolean("must be true or false"),
  created_at: EpochMs,
  revoked_at: v.nullable(EpochMs),
});

/** One key in a cluster file. */
export type ExportedKey = Readonly<v.InferOutput<typeof ExportedKeySchema>>;

/** What an import changed. */
export interface KeyImportResult {
  readonly generation: number;
  readonly added: number;
  readonly updated: number;
  readonly revoked: number;
  readonly unchanged: number;
}

interface Row {
  id: string;
  name: string;
  secret_sha256: Uint8Array;
  rpm: number;
  admin: number;
  created_at: number;
  revoked_at: number | null;
}

/** Builds the signed export of every key (active and revoked) with the next generation. */
export function exportKeys(db: Database, secret: string, now = Date.now()): ClusterFile<ExportedKey> {
  const items = () =>
    (
      db
        .query("SELECT id, name, secret_sha256, rpm, admin, created_at, revoked_at FROM api_keys ORDER BY id")
        .all() as Row[]
    ).map(
      (r): ExportedKey => ({
        id: r.id,
        name: r.name,
        digest: Buffer.from(r.secret_sha256).toString("hex"),
        rpm: r.rpm,
        admin: r.admin === 1,
        created_at: r.created_at,
        revoked_at: r.revoked_at,
      }),
    );
  return exportSigned(db, "keys", secret, items, now);
}

/**
 * Verifies and applies a parsed keys file in one transaction: new keys are added, known ones take
 * the file's name, rpm and admin flag, revocations are copied. Throws {@link ClusterFileError} for
 * a bad signature, an older generation, a malformed key or a key id whose digest differs here.
 */
export function importKeys(db: Database, raw: unknown, secret: string): KeyImportResult {
  const body = verifyClusterFile(raw, "keys", secret);
  const items = parseItems(body.items, ExportedKeySchema, "key");
  return db
    .transaction((): KeyImportResult => {
      new ClusterGenerations(db).recordImport("keys", body.generation);
      const find = db.query(
        "SELECT id, name, secret_sha256, rpm, admin, created_at, revoked_at FROM api_keys WHERE id = ?",
      );
      const insert = db.query(
        "INSERT INTO api_keys (id, name, secret_sha256, rpm, admin, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      );
      const update = db.query(
        "UPDATE api_keys SET name = ?, rpm = ?, admin = ?, revoked_at = COALESCE(revoked_at, ?) WHERE id = ?",
      );
      let added = 0;
      let updated = 0;
      let revoked = 0;
      let unchanged = 0;
      for (const key of items) {
        const digest = Buffer.from(key.digest, "hex");
        const here = find.get(key.id) as Row | null;
        if (!here) {
          insert.run(key.id, key.name, digest, key.rpm, key.admin ? 1 : 0, key.created_at, key.revoked_at);
          added++;
          continue;
        }
        if (!digest.equals(Buffer.from(here.secret_sha256))) {
          throw new ClusterFileError(`key ${key.id} exists here with a different secret; nothing was imported`);
        }
        const revokes = here.revoked_at === null && key.revoked_at !== null;
        const same = here.name === key.name && here.rpm === key.rpm && (here.admin === 1) === key.admin && !revokes;
        if (same) {
          unchanged++;
          continue;
        }
        update.run(key.name, key.rpm, key.admin ? 1 : 0, key.revoked_at, key.id);
        if (revokes) revoked++;
        else updated++;
      }
      return { generation: body.generation, added, updated, revoked, unchanged };
    })
    .immediate();
}

/**
 * The HAProxy map of per-key limits (`<key id> <rpm>` per line) for the balancer's stick-table
 * limit (deploy/haproxy/). Revoked keys are left out: the box refuses them anyway.
 */
export function haproxyRpmMap(file: ClusterFile<ExportedKey>): string {
  const lines = file.items.filter((k) => k.revoked_at === null).map((k) => `${k.id} ${k.rpm}`);
  const header = `# Sawt per-key rpm for HAProxy, keys generation ${file.generation}; written by sawt keys export`;
  return `${header}\n${lines.join("\n")}\n`;
}
