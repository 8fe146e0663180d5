/**
 * The jobs database refuses a newer schema as the key database does (issue #37): a `jobs.db`
 * written by a later build — what an upgrade rolled back without its backup leaves behind — is
 * refused with a message naming it, by the service at start and by the CLI that reads it, and is
 * left exactly as it was, never migrated.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { JobStore } from "../../../src/asr/jobs/store.ts";
import { runCli, startSawt, tempDir } from "../../support/sawt.ts";

const FUTURE = 99;
const FUTURE_TABLES = ["job_deliveries", "job_files", "jobs", "jobs_of_the_future"];
const dirs: Array<ReturnType<typeof tempDir>> = [];

afterAll(() => {
  for (const dir of dirs) dir.remove();
});

/**
 * A data dir whose jobs.db is this build's schema plus a table of a later one, at schema version
 * {@link FUTURE}: every table this build reads is there, so only the version tells them apart.
 */
function futureJobsDb(): { dir: string; bytes: () => Buffer } {
  const data = tempDir("sawt-jobs-future-");
  dirs.push(data);
  new JobStore(data.path).close();
  const path = join(data.path, "jobs.db");
  const db = new Database(path);
  db.exec("CREATE TABLE jobs_of_the_future (id TEXT PRIMARY KEY)");
  db.exec(`PRAGMA user_version = ${FUTURE}`);
  db.close();
  return { dir: data.path, bytes: () => readFileSync(path) };
}

function schemaOf(dir: string): { version: number; tables: string[] } {
  const db = new Database(join(dir, "jobs.db"), { readonly: true });
  try {
    const version = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
    const tables = (
      db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{
        name: string;
      }>
    ).map((t) => t.name);
    return { version, tables };
  } finally {
    db.close();
  }
}

describe("jobs database from a newer build", () => {
  test("does keep the service from starting, naming jobs.db and its version, and leave the file as it was", async () => {
    const future = futureJobsDb();
    const before = future.bytes();
    const started = startSawt({ dataDir: future.dir, env: { SAWT_LOG_LEVEL: "warn" } });
    const error = await started.then(
      async (sawt) => {
        await sawt.stop("SIGKILL");
        return undefined;
      },
      (reason: Error) => reason,
    );
    expect(error?.message).toContain("did not report listening");
    expect(error?.message).toContain("the jobs database (jobs.db)");
    expect(error?.message).toContain(`schema version ${FUTURE}, newer than this build understands`);
    expect(schemaOf(future.dir)).toEqual({ version: FUTURE, tables: FUTURE_TABLES });
    expect(future.bytes().equals(before)).toBe(true);
  }, 60_000);

  test("does refuse it in `sawt jobs resubmit` too, with the same message", async () => {
    const future = futureJobsDb();
    const result = await runCli(["jobs", "resubmit", "--url", "http://127.0.0.1:9", "--data-dir", future.dir], {
      env: { SAWT_API_KEY: "sawt_unused" },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `the jobs database (jobs.db) at ${join(future.dir, "jobs.db")} has schema version ${FUTURE}`,
    );
    expect(schemaOf(future.dir)).toEqual({ version: FUTURE, tables: FUTURE_TABLES });
  }, 60_000);
});
