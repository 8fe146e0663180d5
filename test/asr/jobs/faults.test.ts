/**
 * Jobs exactly once under every fault (issue #39): the service is killed with SIGKILL at random
 * moments — while a job runs, while it starts up (its engine and its jobs worker loading), while a
 * model reload runs — and restarted on the same data dir each time; and a running job sees model
 * reloads by SIGHUP and by the admin route. None of these is a file's fault: at the end every
 * file completed exactly once (none failed, no attempt counted against any), its result equals
 * the synchronous REST answer, its webhook arrived (a duplicate only with the same idempotency
 * key), and the log shows no transcription error charged to a file.
 *
 * The rule still fails a file that crashes its worker itself: killed three times while it is
 * transcribed, with the service running, it fails; a file that was only beside it at the first
 * crash runs alone after it and completes.
 *
 * `SAWT_JOBS_FILES=200` runs the issue's full size; `SAWT_JOBS_KILLED_RUNS=10` repeats the
 * 24-file scenario of the report ten times (CI: fewer files and runs).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { encodeWav } from "../../../src/audio/wav.ts";
import { letterToneAudio } from "../../support/models/ctc.ts";
import { startSawt, tempDir, until, type SawtProcess } from "../../support/sawt.ts";
import {
  api,
  expectResultsEqualRest,
  restAnswer,
  startJobsServer,
  submitPaths,
  submitUploads,
  textOf,
  toneModels,
  waitForJob,
  webhookReceiver,
  writeCalls,
} from "./support.ts";
import { concat, silence } from "../support.ts";

// Tone files take a few milliseconds each: a start or a reload lets dozens through before the kill
// that follows it, so the short form needs this many for the kills to land inside the job.
const COUNT = Number(process.env.SAWT_JOBS_FILES ?? 100);
const KILLED_RUNS = Number(process.env.SAWT_JOBS_KILLED_RUNS ?? 2);
const KILLS = 10;
const RELOADS = 5;
const SECRET = "faults-test-secret-0123456789abcdef0123";

let models: Awaited<ReturnType<typeof toneModels>>;
let source: ReturnType<typeof tempDir>;
let receiver: ReturnType<typeof webhookReceiver>;
/** Every server started here: a test that fails midway must not leave one running. */
const started: SawtProcess[] = [];
let env: Record<string, string>;

beforeAll(async () => {
  models = await toneModels();
  source = tempDir("sawt-jobs-faults-");
  receiver = webhookReceiver();
  env = {
    SAWT_JOBS_CALLBACK_HOSTS: `127.0.0.1:${receiver.port}`,
    SAWT_JOBS_WEBHOOK_SECRET: SECRET,
    SAWT_JOBS_WEBHOOK_RETRY_MS: "50",
    // One file at a time keeps the job running long enough for the faults to land in it.
    SAWT_ASR_CONCURRENCY: "2",
    SAWT_JOBS_MAX_SLOTS: "1",
    SAWT_LOG_LEVEL: "info",
  };
});

afterAll(async () => {
  await Promise.all(started.map((sawt) => sawt.stop("SIGKILL")));
  receiver?.stop();
  models?.remove();
  source?.remove();
});

/** A server on `dataDir`, resolved once its ports are bound: its engines may still be loading. */
async function startBound(dataDir: string): Promise<SawtProcess> {
  const sawt = await startSawt({
    env: { SAWT_MODELS_DIR: models.dir, SAWT_JOBS_BOX_ID: "box1", ...env },
    dataDir,
  });
  started.push(sawt);
  return sawt;
}

/** A server on `dataDir` whose ASR engine serves. */
async function startServing(dataDir: string): Promise<SawtProcess> {
  const sawt = await startJobsServer(models.dir, env, dataDir);
  started.push(sawt);
  return sawt;
}

/** Reads the job store beside the server (read-only). */
function inStore<T>(dataDir: string, read: (db: Database) => T): T {
  const db = new Database(join(dataDir, "jobs.db"), { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const completed = (dataDir: string, jobId: string) =>
  inStore(dataDir, (db) => {
    const row = db.query("SELECT COUNT(*) AS n FROM job_files WHERE job_id = ? AND status = 'completed'").get(jobId);
    return (row as { n: number }).n;
  });

/** Files charged with a fault of their own (an attempt counted against them). */
const charged = (dataDir: string, jobId: string) =>
  inStore(dataDir, (db) => {
    const row = db.query("SELECT COUNT(*) AS n FROM job_files WHERE job_id = ? AND faults > 0").get(jobId);
    return (row as { n: number }).n;
  });

/** Log lines where a file's transcription error was counted against it. */
const chargedInLog = (logs: readonly string[]) => logs.filter((line) => line.includes("job file failed"));

/** Every file's webhook arrived, and a webhook received twice carried the same idempotency key. */
async function expectWebhooksOnce(jobId: string, count: number): Promise<void> {
  const hooks = () =>
    receiver.received
      .map((r) => ({ ...r, json: JSON.parse(r.body) }))
      .filter((h) => h.json.job_id === jobId && h.event === "file.completed");
  await until(() => new Set(hooks().map((h) => h.json.file.id)).size === count, "a webhook for every file", {
    timeoutMs: 60_000,
    everyMs: 50,
  });
  const keysByFile = new Map<string, Set<string>>();
  for (const hook of hooks())
    keysByFile.set(hook.json.file.id, (keysByFile.get(hook.json.file.id) ?? new Set()).add(hook.key!));
  for (const keys of keysByFile.values()) expect(keys.size).toBe(1);
  expect(receiver.received.some((r) => r.event === "file.failed" && JSON.parse(r.body).job_id === jobId)).toBe(false);
  await until(
    () => receiver.received.some((r) => r.event === "job.completed" && JSON.parse(r.body).job_id === jobId),
    "the job's webhook",
    { timeoutMs: 60_000, everyMs: 50 },
  );
  const jobKeys = receiver.received
    .filter((r) => r.event === "job.completed" && JSON.parse(r.body).job_id === jobId)
    .map((r) => r.key);
  expect(new Set(jobKeys).size).toBe(1);
}

/** The checks every scenario ends with. */
async function expectEveryFileOnce(sawt: SawtProcess, key: string, jobId: string, paths: string[], logs: string[]) {
  const job = await waitForJob(sawt, key, jobId, 180_000);
  expect(job.counts).toEqual({ queued: 0, running: 0, completed: paths.length, failed: 0, cancelled: 0 });
  expect(charged(sawt.dataDir, jobId)).toBe(0);
  await expectResultsEqualRest(sawt, key, job, paths, ["json"]);
  await expectWebhooksOnce(jobId, paths.length);
  expect(chargedInLog([...logs, ...sawt.logs])).toEqual([]);
}

type Moment = "start-up" | "reload" | "running";

/** Pids of the service's jobs worker processes (children of `servicePid` running `__jobs-worker`). */
function workers(servicePid: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        return parent === servicePid && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("__jobs-worker");
      } catch {
        return false;
      }
    });
}

/** The state and faults of each file of a job, by index. */
const fileStates = (dataDir: string, jobId: string) =>
  inStore(
    dataDir,
    (db) =>
      db.query("SELECT status, faults, error FROM job_files WHERE job_id = ? ORDER BY idx").all(jobId) as Array<{
        status: string;
        faults: number;
        error: string | null;
      }>,
  );

describe("jobs under faults", () => {
  test(`does complete each of ${COUNT} files once through ${KILLS} SIGKILLs at random moments, start-up and reloads included`, async () => {
    const data = tempDir("sawt-jobs-faults-kill-");
    const paths = writeCalls(join(source.path, "killed"), COUNT);
    let sawt = await startServing(data.path);
    const key = (await sawt.createKey({ name: "faults", rpm: 1_000_000 })).key;
    const created = await submitUploads(sawt, key, paths, { callback_url: receiver.url });
    expect(created.status).toBe(202);
    const id = created.json.id as string;
    const logs: string[] = [];
    // Each kill lands at a moment of its kind: a few hundred milliseconds into a start (the
    // service's engine and its jobs worker loading, interrupted files being requeued), a moment
    // after SIGHUP (a reload swapping generations and restarting the worker), or once a few more
    // files have finished (a file mid-transcription). Targets rise by at most `step`, so the kills
    // spread over the job rather than land after its end.
    const moments: Moment[] = Array.from(
      { length: KILLS },
      (_, i) => (["start-up", "reload", "running"] as const)[i % 3]!,
    );
    moments.sort(() => Math.random() - 0.5);
    // The first kill finds the service serving, not starting.
    while (moments[0] === "start-up") moments.push(moments.shift()!);
    const step = Math.max(1, Math.floor((COUNT * 0.3) / KILLS));
    const progress: number[] = [];
    for (const moment of moments) {
      if (moment === "start-up") await Bun.sleep(Math.random() * 300);
      else {
        await until(
          async () => (await fetch(`${sawt.baseUrl}/v1/asr/health`).catch(() => undefined))?.status === 200,
          "ASR",
        );
        const target = Math.min(COUNT - 1, completed(data.path, id) + 1 + Math.floor(Math.random() * step));
        await until(() => completed(data.path, id) >= target, `${target} files done`, {
          timeoutMs: 60_000,
          everyMs: 1,
        });
        if (moment === "reload") {
          process.kill(sawt.proc.pid, "SIGHUP");
          await Bun.sleep(Math.random() * 300);
        }
      }
      await sawt.stop("SIGKILL");
      logs.push(...sawt.logs);
      progress.push(completed(data.path, id));
      sawt = await startBound(data.path);
    }
    // Sized runs say where the kills landed (moment: files completed then), for the record.
    if (process.env.SAWT_JOBS_FILES)
      console.log(`kills (moment:completed): ${moments.map((m, i) => `${m}:${progress[i]}`).join(" ")}`);
    // Most kills landed while the job ran (how many files a start lets through before the next
    // kill varies: the full size leaves more room).
    expect(progress[KILLS / 2]!).toBeLessThan(COUNT);
    await expectEveryFileOnce(sawt, key, id, paths, logs);
    await sawt.stop();
    data.remove();
  }, 600_000);

  test(`does complete each of ${COUNT} files once through ${RELOADS} model reloads (SIGHUP and the admin route)`, async () => {
    const data = tempDir("sawt-jobs-faults-reload-");
    const paths = writeCalls(join(source.path, "reloaded"), COUNT);
    const sawt = await startServing(data.path);
    const key = (await sawt.createKey({ name: "faults", rpm: 1_000_000 })).key;
    const admin = (await sawt.createKey({ name: "admin", admin: true, rpm: 1_000_000 })).key;
    const id = (await submitUploads(sawt, key, paths, { callback_url: receiver.url })).json.id as string;
    for (let i = 0; i < RELOADS; i++) {
      const target = Math.floor(((i + 1) * COUNT) / (RELOADS + 2));
      await until(() => completed(data.path, id) >= target, `${target} files done`, { timeoutMs: 60_000, everyMs: 1 });
      expect(completed(data.path, id)).toBeLessThan(COUNT);
      if (i % 2 === 0) process.kill(sawt.proc.pid, "SIGHUP");
      else expect((await api(sawt, admin, "/v1/admin/models/reload", { method: "POST" })).status).toBe(200);
    }
    await expectEveryFileOnce(sawt, key, id, paths, []);
    expect(sawt.logs.filter((line) => line.includes("models reload")).length).toBeGreaterThanOrEqual(RELOADS);
    await sawt.stop();
    data.remove();
  }, 600_000);

  test(`does lose no file of a 24-file job killed 150 ms and 400 ms after it was submitted (${KILLED_RUNS} runs)`, async () => {
    for (let run = 0; run < KILLED_RUNS; run++) {
      const data = tempDir("sawt-jobs-faults-24-");
      const paths = writeCalls(join(source.path, `run-${run}`), 24);
      let sawt = await startServing(data.path);
      const key = (await sawt.createKey({ name: "faults", rpm: 1_000_000 })).key;
      const submitted = performance.now();
      const id = (await submitUploads(sawt, key, paths, { callback_url: receiver.url })).json.id as string;
      const logs: string[] = [];
      // As reported: killed 150 ms after submission, and again 400 ms after it (at once when the
      // restart took longer, i.e. while it starts up).
      for (const at of [150, 400]) {
        await Bun.sleep(Math.max(0, submitted + at - performance.now()));
        await sawt.stop("SIGKILL");
        logs.push(...sawt.logs);
        sawt = await startBound(data.path);
      }
      await expectEveryFileOnce(sawt, key, id, paths, logs);
      await sawt.stop();
      data.remove();
    }
  }, 600_000);

  test("does fail a file that crashes its worker three times, and charge a file beside it only once", async () => {
    const data = tempDir("sawt-jobs-faults-poison-");
    const folder = join(source.path, "poison");
    const paths = writeCalls(folder, 4);
    // Two long recordings (ten minutes each: a few hundred milliseconds to transcribe) that the
    // test kills the worker under; two short ones after them.
    for (const i of [0, 1])
      writeFileSync(paths[i]!, encodeWav(concat(silence(0.2), letterToneAudio(textOf(i)), silence(600)), 16000));
    const sawt = await startJobsServer(
      models.dir,
      { ...env, SAWT_JOBS_SOURCE_DIRS: source.path, SAWT_ASR_CONCURRENCY: "3", SAWT_JOBS_MAX_SLOTS: "2" },
      data.path,
    );
    started.push(sawt);
    const key = (await sawt.createKey({ name: "poison", rpm: 1_000_000 })).key;
    const id = (await submitPaths(sawt, key, { paths: ["poison"] })).json.id as string;
    const killWorkerWhile = async (what: string, check: (files: ReturnType<typeof fileStates>) => boolean) => {
      await until(() => check(fileStates(data.path, id)) && workers(sawt.proc.pid).length === 1, what, {
        timeoutMs: 30_000,
        everyMs: 1,
      });
      process.kill(workers(sawt.proc.pid)[0]!, "SIGKILL");
    };
    // 1: both long files run side by side; the worker dies under both: one fault each.
    await killWorkerWhile("both long files running", (f) => f[0]!.status === "running" && f[1]!.status === "running");
    await until(() => fileStates(data.path, id)[1]!.faults === 1, "the first fault");
    expect(fileStates(data.path, id).map((f) => f.faults)).toEqual([1, 1, 0, 0]);
    // 2 and 3: each file with a fault runs alone, so only the first is running when the worker dies.
    for (const faults of [2, 3]) {
      await killWorkerWhile(`the first file running alone (fault ${faults})`, (f) => f[0]!.status === "running");
      expect(fileStates(data.path, id)[1]!.status).toBe("queued");
      await until(
        () => fileStates(data.path, id)[0]!.faults === faults || fileStates(data.path, id)[0]!.status === "failed",
        `fault ${faults}`,
      );
    }
    const job = await waitForJob(sawt, key, id, 60_000);
    expect(job.counts).toEqual({ queued: 0, running: 0, completed: 3, failed: 1, cancelled: 0 });
    const states = fileStates(data.path, id);
    expect(states[0]).toEqual({
      status: "failed",
      faults: 2,
      error: "The transcription stopped unexpectedly on this file",
    });
    expect(states.slice(1).map((f) => [f.status, f.faults])).toEqual([
      ["completed", 1],
      ["completed", 0],
      ["completed", 0],
    ]);
    for (const [i, file] of job.files.entries()) {
      if (i === 0) continue;
      const result = await api(sawt, key, `/v1/asr/jobs/${id}/files/${file.id}/result?response_format=json`);
      expect(result.text).toBe(await restAnswer(sawt, key, paths[i]!, "json"));
    }
    expect(sawt.logs.filter((line) => line.includes("jobs worker exited") && line.includes('"code":137'))).toHaveLength(
      3,
    );
    await sawt.stop();
    data.remove();
  }, 120_000);
});
