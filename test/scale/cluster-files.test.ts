/**
 * Signed cluster files without a balancer: canonical signing, keys and voices round trips between
 * two databases, and every refusal (tampering, wrong kind, older generation, conflicts).
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import {
  canonicalJson,
  clusterSecret,
  ClusterFileError,
  signClusterFile,
  verifyClusterFile,
} from "../../src/store/cluster-file.ts";
import { closeDatabase, openDatabase } from "../../src/store/database.ts";
import { exportKeys, haproxyRpmMap, importKeys } from "../../src/store/key-export.ts";
import { KeyStore } from "../../src/store/keys.ts";
import { exportVoices, importVoices } from "../../src/voices/export.ts";
import { ClonedVoiceStore } from "../../src/voices/store.ts";
import { tempDir } from "../support/sawt.ts";

const SECRET = "unit-test-cluster-secret-0123456789abcdef";
const cleanups: (() => void)[] = [];

function database(): Database {
  const dir = tempDir("sawt-cluster-file-");
  const db = openDatabase(dir.path);
  cleanups.push(() => {
    closeDatabase(db);
    dir.remove();
  });
  return db;
}

afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

describe("signed cluster files", () => {
  test("does sign the canonical form so key order and whitespace do not matter when verifying", () => {
    expect(canonicalJson({ b: 1, a: [{ d: null, c: "x" }] })).toBe('{"a":[{"c":"x","d":null}],"b":1}');
    const file = signClusterFile(
      {
        format: "sawt-cluster/1",
        kind: "keys",
        generation: 3,
        created_at: "2026-01-01T00:00:00.000Z",
        items: [{ id: "a" }],
      },
      SECRET,
    );
    const reordered = JSON.parse(
      JSON.stringify({
        items: file.items,
        signature: file.signature,
        generation: 3,
        kind: "keys",
        created_at: file.created_at,
        format: file.format,
      }),
    );
    expect(verifyClusterFile(reordered, "keys", SECRET).generation).toBe(3);
  });

  test("does refuse a changed value, a missing signature, another secret and the other kind", () => {
    const file = signClusterFile(
      {
        format: "sawt-cluster/1",
        kind: "keys",
        generation: 1,
        created_at: "2026-01-01T00:00:00.000Z",
        items: [{ rpm: 30 }],
      },
      SECRET,
    );
    const refuse =
      (raw: unknown, kind: "keys" | "voices" = "keys", secret = SECRET) =>
      () =>
        verifyClusterFile(raw, kind, secret);
    expect(refuse({ ...file, items: [{ rpm: 31 }] })).toThrow("bad signature");
    expect(refuse({ ...file, generation: 2 })).toThrow("bad signature");
    expect(refuse({ ...file, signature: undefined })).toThrow("bad signature");
    expect(refuse(file, "keys", `${SECRET}x`)).toThrow("bad signature");
    expect(refuse(file, "voices")).toThrow('holds "keys", not voices');
    expect(refuse([1, 2])).toThrow(ClusterFileError);
  });

  test("does refuse to run when cluster.secret is unset or short", () => {
    expect(() => clusterSecret({ cluster: { secret: "" } })).toThrow("cluster.secret");
    expect(() => clusterSecret({ cluster: { secret: "short" } })).toThrow("at least 32 characters");
    expect(clusterSecret({ cluster: { secret: SECRET } })).toBe(SECRET);
  });
});

describe("keys export and import", () => {
  test("does carry digests only and let the other box verify the same key when imported", () => {
    const source = database();
    const target = database();
    const created = new KeyStore(source).create({ name: "ivr", rpm: 30, admin: true });
    const file = exportKeys(source, SECRET);
    expect(JSON.stringify(file)).not.toContain(created.key.split("_").slice(2).join("_"));
    expect(file.items[0]).toMatchObject({ id: created.id, name: "ivr", rpm: 30, admin: true, revoked_at: null });
    expect(importKeys(target, JSON.parse(JSON.stringify(file)), SECRET)).toMatchObject({ added: 1, generation: 1 });
    expect(new KeyStore(target).verify(created.key)?.id).toBe(created.id);
    expect(haproxyRpmMap(file)).toContain(`${created.id} 30\n`);
  });

  test("does copy revocations, never undo one, and refuse an older generation when importing", () => {
    const source = database();
    const target = database();
    const keys = new KeyStore(source);
    const a = keys.create({ name: "a", rpm: 60 });
    const b = keys.create({ name: "b", rpm: 60 });
    const first = exportKeys(source, SECRET);
    keys.revoke(a.id);
    const second = exportKeys(source, SECRET);
    expect(second.generation).toBe(2);
    importKeys(target, second, SECRET);
    expect(new KeyStore(target).verify(a.key)).toBeUndefined();
    expect(() => importKeys(target, first, SECRET)).toThrow("generation 1 is older than generation 2");
    // A key revoked on the target stays revoked when a file still lists it as active.
    new KeyStore(target).revoke(b.id);
    importKeys(target, exportKeys(source, SECRET), SECRET);
    expect(new KeyStore(target).verify(b.key)).toBeUndefined();
    expect(haproxyRpmMap(second)).not.toContain(a.id);
  });

  test("does refuse a key id known here with another secret and import nothing when it meets one", () => {
    const source = database();
    const target = database();
    const created = new KeyStore(source).create({ name: "a", rpm: 60 });
    new KeyStore(source).create({ name: "b", rpm: 60 });
    const body = exportKeys(source, SECRET);
    importKeys(target, body, SECRET);
    target.query("UPDATE api_keys SET secret_sha256 = zeroblob(32) WHERE id = ?").run(created.id);
    target.query("DELETE FROM api_keys WHERE id != ?").run(created.id);
    expect(() => importKeys(target, exportKeys(source, SECRET), SECRET)).toThrow("different secret");
    expect(new KeyStore(target).list()).toHaveLength(1);
  });
});

describe("voices export and import", () => {
  function cloned(db: Database, keyId: string, values: number[]) {
    const store = new ClonedVoiceStore(db);
    const voice = store.create(keyId, "Amal");
    store.markReady(voice.id, new Float32Array(values));
    return voice;
  }

  test("does carry metadata and the embedding so the voice speaks on the other box when imported", () => {
    const source = database();
    const target = database();
    const key = new KeyStore(source).create({ name: "owner", rpm: 60 });
    const voice = cloned(source, key.id, [0.25, -1.5, 3]);
    const training = new ClonedVoiceStore(source).create(key.id, "Still training");
    const keysFile = exportKeys(source, SECRET);
    const voicesFile = exportVoices(source, SECRET);
    expect(voicesFile.items.map((v) => v.id)).toEqual([voice.id]);
    expect(voicesFile.items.map((v) => v.id)).not.toContain(training.id);
    expect(() => importVoices(target, voicesFile, SECRET)).toThrow("import the keys first");
    importKeys(target, keysFile, SECRET);
    expect(importVoices(target, JSON.parse(JSON.stringify(voicesFile)), SECRET)).toMatchObject({ added: 1 });
    const store = new ClonedVoiceStore(target);
    expect(store.get(key.id, voice.id)).toMatchObject({ name: "Amal", status: "ready" });
    expect(Array.from(store.embedding(key.id, voice.id)!)).toEqual([0.25, -1.5, 3]);
    expect(importVoices(target, voicesFile, SECRET)).toMatchObject({ unchanged: 1, added: 0 });
  });

  test("does delete voices missing from the file only when pruning", () => {
    const source = database();
    const target = database();
    const key = new KeyStore(source).create({ name: "owner", rpm: 60 });
    const kept = cloned(source, key.id, [1]);
    const gone = cloned(source, key.id, [2]);
    importKeys(target, exportKeys(source, SECRET), SECRET);
    importVoices(target, exportVoices(source, SECRET), SECRET);
    new ClonedVoiceStore(source).delete(key.id, gone.id);
    expect(importVoices(target, exportVoices(source, SECRET), SECRET).removed).toBe(0);
    expect(new ClonedVoiceStore(target).list(key.id)).toHaveLength(2);
    expect(importVoices(target, exportVoices(source, SECRET), SECRET, { prune: true }).removed).toBe(1);
    expect(new ClonedVoiceStore(target).list(key.id).map((v) => v.id)).toEqual([kept.id]);
  });

  test("does refuse a tampered embedding", () => {
    const source = database();
    const key = new KeyStore(source).create({ name: "owner", rpm: 60 });
    cloned(source, key.id, [1, 2]);
    const file = exportVoices(source, SECRET);
    const tampered = {
      ...file,
      items: [{ ...file.items[0]!, embedding: Buffer.from(new Float32Array([9, 9]).buffer).toString("base64") }],
    };
    expect(() => importVoices(database(), tampered, SECRET)).toThrow("bad signature");
  });
});
