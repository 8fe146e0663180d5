import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "../../src/store/database.ts";
import { KeyStore } from "../../src/store/keys.ts";
import { RateLimiter } from "../../src/store/rate-limits.ts";
import { runCli, tempDir } from "../support/sawt.ts";

const dir = tempDir("sawt-keys-");
afterAll(() => dir.remove());

describe("key store", () => {
  test("does verify a created key and refuse a tampered one", () => {
    const keys = new KeyStore(openDatabase(join(dir.path, "a")));
    const created = keys.create({ name: "ivr", rpm: 10 });
    expect(created.key).toMatch(/^sawt_[a-z2-7]{12}_[A-Za-z0-9_-]{43}$/);
    expect(keys.verify(created.key)?.id).toBe(created.id);
    const tampered = created.key.slice(0, -1) + (created.key.endsWith("A") ? "B" : "A");
    expect(keys.verify(tampered)).toBeUndefined();
    expect(keys.verify("sawt_aaaaaaaaaaaa_" + "x".repeat(43))).toBeUndefined();
    expect(keys.verify("garbage")).toBeUndefined();
  });

  test("does store only a SHA-256 digest, never the secret", () => {
    const path = join(dir.path, "b");
    const keys = new KeyStore(openDatabase(path));
    const created = keys.create({ name: "n", rpm: 5 });
    const secret = created.key.split("_").slice(2).join("_");
    const raw = new Database(join(path, "sawt.db"), { readonly: true });
    const row = raw.query("SELECT * FROM api_keys").get() as Record<string, unknown>;
    const dump = JSON.stringify(row) + Buffer.from(row.secret_sha256 as Uint8Array).toString("latin1");
    expect(dump).not.toContain(secret);
    expect((row.secret_sha256 as Uint8Array).byteLength).toBe(32);
    const file = Bun.file(join(path, "sawt.db"));
    return file.arrayBuffer().then((bytes) => expect(Buffer.from(bytes).includes(secret)).toBe(false));
  });

  test("does refuse a revoked key", () => {
    const keys = new KeyStore(openDatabase(join(dir.path, "c")));
    const created = keys.create({ name: "n", rpm: 5 });
    expect(keys.revoke(created.id)).toBe(true);
    expect(keys.verify(created.key)).toBeUndefined();
    expect(keys.revoke(created.id)).toBe(false);
  });

  test("does admit exactly the limit within a minute and report when a slot frees", () => {
    const db = openDatabase(join(dir.path, "d"));
    const key = new KeyStore(db).create({ name: "n", rpm: 3 });
    const limiter = new RateLimiter(db);
    const t0 = 1_000_000;
    const decisions = [0, 1000, 2000, 3000].map((dt) => limiter.consume(key.id, 3, t0 + dt));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions[3]!.resetSeconds).toBe(57);
    expect(limiter.consume(key.id, 3, t0 + 60_001).allowed).toBe(true);
  });

  test("does migrate to the latest schema with WAL and foreign keys on", () => {
    const db = openDatabase(join(dir.path, "e"));
    expect((db.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode).toBe("wal");
    expect((db.query("PRAGMA foreign_keys").get() as { foreign_keys: number }).foreign_keys).toBe(1);
    expect((db.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBeGreaterThanOrEqual(2);
    const strict = db.query("SELECT sql FROM sqlite_master WHERE name = 'api_keys'").get() as { sql: string };
    expect(strict.sql).toContain("STRICT");
  });
});

describe("sawt keys", () => {
  const env = { SAWT_DATA_DIR: join(dir.path, "cli") };

  test("does print the key once as JSON and never list secrets", async () => {
    const created = await runCli(["keys", "create", "--name", "ivr", "--rpm", "7", "--json"], { env });
    expect(created.code).toBe(0);
    const body = JSON.parse(created.stdout);
    expect(Object.keys(body).sort()).toEqual(["id", "key", "name", "rpm"]);
    expect(body.rpm).toBe(7);
    const secret = body.key.split("_").slice(2).join("_");
    for (const args of [
      ["keys", "list"],
      ["keys", "list", "--json"],
    ]) {
      const listed = await runCli(args, { env });
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain(body.id);
      expect(listed.stdout).not.toContain(secret);
    }
    const revoked = await runCli(["keys", "revoke", body.id], { env });
    expect(revoked.code).toBe(0);
    const again = await runCli(["keys", "revoke", body.id], { env });
    expect(again.code).toBe(1);
  });

  test("does reject bad usage with exit 2 and help", async () => {
    const noName = await runCli(["keys", "create"], { env });
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain("--name");
    const badRpm = await runCli(["keys", "create", "--name", "x", "--rpm", "zero"], { env });
    expect(badRpm.code).toBe(2);
    const unknown = await runCli(["keys", "create", "--name", "x", "--bogus"], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option --bogus");
  });
});
