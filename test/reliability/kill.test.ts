/**
 * kill -9 during writes: while authenticated requests update keys' last use and rate-limit rows
 * and `sawt keys create` / `keys revoke` write from other processes, the server is SIGKILLed,
 * restarted on the same data dir, and killed again. Afterwards SQLite's integrity check passes,
 * every key whose creation was reported still authenticates, every reported revocation holds, and
 * no key secret is stored anywhere in the data dir.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, startSawt, tempDir, type SawtProcess } from "../support/sawt.ts";
import { recordFigures } from "./server.ts";
import { keySecret } from "./support.ts";

/** Kill rounds: 4 in CI, more with SAWT_RELIABILITY_KILLS (`bun run reliability` uses 8). */
const KILLS = Number(process.env.SAWT_RELIABILITY_KILLS ?? 4);
const data = tempDir("sawt-kill-");
const models = tempDir("sawt-kill-models-");
afterAll(() => {
  data.remove();
  models.remove();
});

const env = () => ({ SAWT_DATA_DIR: data.path, SAWT_MODELS_DIR: models.path });

/** Authenticated requests in a loop until the server dies; resolves to how many were answered. */
async function hammer(server: SawtProcess, keys: readonly string[]): Promise<number> {
  let answered = 0;
  const worker = async (n: number) => {
    for (let i = n; ; i++) {
      try {
        await fetch(`${server.baseUrl}/v1/tts/voices`, { headers: { "x-api-key": keys[i % keys.length]! } }).then((r) =>
          r.arrayBuffer(),
        );
        answered++;
      } catch {
        return;
      }
    }
  };
  await Promise.all([0, 1, 2, 3].map(worker));
  return answered;
}

test(`does keep SQLite intact and every reported key write after ${KILLS} kill -9s during writes`, async () => {
  const created: string[] = [];
  const revoked: string[] = [];
  let answered = 0;
  for (let round = 0; round < KILLS; round++) {
    const server = await startSawt({ env: env() });
    if (created.length === 0) created.push((await server.createKey({ name: "seed", rpm: 1_000_000 })).key);
    const load = hammer(server, created);
    // Key writes from other processes race the server's own writes and the kill.
    const writes = (async () => {
      for (let i = 0; i < 2; i++) {
        const made = await runCli(["keys", "create", "--name", `k${round}-${i}`, "--rpm", "1000000", "--json"], {
          env: env(),
        });
        if (made.code === 0) created.push((JSON.parse(made.stdout) as { key: string }).key);
      }
      if (created.length > 3) {
        const victim = created[1]!;
        const id = victim.split("_")[1]!;
        const result = await runCli(["keys", "revoke", id], { env: env() });
        if (result.code === 0) revoked.push(created.splice(1, 1)[0]!);
      }
    })();
    await Bun.sleep(300 + round * 70);
    server.proc.kill("SIGKILL");
    await server.stop();
    answered += await load;
    await writes;
  }
  const db = new Database(join(data.path, "sawt.db"));
  try {
    expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
  } finally {
    db.close();
  }
  const server = await startSawt({ env: env() });
  try {
    const status = async (key: string) =>
      (await fetch(`${server.baseUrl}/v1/tts/voices`, { headers: { "x-api-key": key } })).status;
    for (const key of created) expect(await status(key)).toBe(200);
    for (const key of revoked) expect(await status(key)).toBe(401);
  } finally {
    await server.stop();
  }
  for (const name of readdirSync(data.path, { recursive: true }) as string[]) {
    const path = join(data.path, name);
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch {
      continue; // a directory
    }
    for (const key of [...created, ...revoked]) expect(bytes.includes(keySecret(key))).toBe(false);
  }
  console.log(
    `kill -9: ${KILLS} kills, ${answered} requests answered, ${created.length} keys live, ${revoked.length} revoked`,
  );
  await recordFigures("kill", {
    kills: KILLS,
    answered,
    keys: created.length,
    revoked: revoked.length,
    integrity: "ok",
  });
}, 180_000);
