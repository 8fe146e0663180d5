/**
 * API keys (D10). A key reads `sawt_<id>_<secret>`: the id (public, 12 base32 chars) finds the row,
 * the secret (256 random bits, base64url) is stored only as its SHA-256 digest and compared in
 * constant time. The plaintext exists once, in the return value of {@link KeyStore.create}.
 */
import type { Database } from "bun:sqlite";
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A key's public record (never includes the secret or its digest). */
export interface ApiKeyRecord {
  readonly id: string;
  readonly name: string;
  readonly rpm: number;
  readonly admin: boolean;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
}

/** A freshly created key, with its one-time plaintext. */
export interface CreatedKey extends ApiKeyRecord {
  readonly key: string;
}

interface KeyRow {
  id: string;
  name: string;
  secret_sha256: Uint8Array;
  rpm: number;
  admin: number;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

/** A key id: 12 base32 characters (public; it names the key in logs, lists and cluster files). */
export const KEY_ID = /^[a-z2-7]{12}$/;
const KEY_PATTERN = new RegExp(`^sawt_(${KEY_ID.source.slice(1, -1)})_([A-Za-z0-9_-]{43})$`);
const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

function randomId(): string {
  const bytes = randomBytes(12);
  let out = "";
  for (const byte of bytes) out += BASE32[byte & 31];
  return out;
}

function digest(secret: string): Uint8Array {
  return createHash("sha256").update(secret, "utf8").digest();
}

function toRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    rpm: row.rpm,
    admin: row.admin === 1,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

// A digest to compare against when the id is unknown, so a miss costs the same as a hit.
const DECOY_DIGEST = digest("sawt-decoy");

/** Creates, lists, revokes and verifies API keys. */
export class KeyStore {
  constructor(private readonly db: Database) {}

  /** Creates a key and returns it with its plaintext (shown once). */
  create(input: { name: string; rpm: number; admin?: boolean }): CreatedKey {
    const name = input.name.trim();
    if (name.length === 0 || name.length > 100) throw new RangeError("name must be 1-100 characters");
    if (!Number.isInteger(input.rpm) || input.rpm < 1) throw new RangeError("rpm must be a positive integer");
    const id = randomId();
    const secret = randomBytes(32).toString("base64url");
    const now = Date.now();
    this.db
      .query("INSERT INTO api_keys (id, name, secret_sha256, rpm, admin, created_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(id, name, digest(secret), input.rpm, input.admin ? 1 : 0, now);
    return {
      id,
      name,
      rpm: input.rpm,
      admin: input.admin ?? false,
      createdAt: now,
      lastUsedAt: null,
      revokedAt: null,
      key: `sawt_${id}_${secret}`,
    };
  }

  /** All keys, newest first, without secrets. */
  list(): ApiKeyRecord[] {
    return (this.db.query("SELECT * FROM api_keys ORDER BY created_at DESC, id").all() as KeyRow[]).map(toRecord);
  }

  /** One key by id, or undefined. */
  get(id: string): ApiKeyRecord | undefined {
    const row = this.db.query("SELECT * FROM api_keys WHERE id = ?").get(id) as KeyRow | null;
    return row ? toRecord(row) : undefined;
  }

  /** Sets a key's per-minute limit; false when no such key exists. */
  setRpm(id: string, rpm: number): boolean {
    if (!Number.isInteger(rpm) || rpm < 1) throw new RangeError("rpm must be a positive integer");
    return this.db.query("UPDATE api_keys SET rpm = ? WHERE id = ?").run(rpm, id).changes === 1;
  }

  /** Revokes a key; false when no such active key exists. */
  revoke(id: string): boolean {
    return (
      this.db.query("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL").run(Date.now(), id)
        .changes === 1
    );
  }

  /** Checks a presented key; returns the active key's record or undefined. Constant-time on the secret. */
  verify(presented: string): ApiKeyRecord | undefined {
    const match = KEY_PATTERN.exec(presented);
    const row = match ? (this.db.query("SELECT * FROM api_keys WHERE id = ?").get(match[1]!) as KeyRow | null) : null;
    const expected = row ? row.secret_sha256 : DECOY_DIGEST;
    const actual = digest(match ? match[2]! : presented);
    const equal = expected.byteLength === actual.byteLength && timingSafeEqual(expected, actual);
    if (!row || !equal || row.revoked_at !== null) return undefined;
    this.db.query("UPDATE api_keys SET last_used_at = ? WHERE id = ?").run(Date.now(), row.id);
    return toRecord(row);
  }
}
