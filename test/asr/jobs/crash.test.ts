/**
 * Durability (issue #28, acceptance 2): the server (a child process) is killed with SIGKILL at
 * random moments while a job runs, and restarted on the same data dir each time. At the end every
 * file has exactly one result, equal to the synchronous REST answer; every file's webhook arrived,
 * and any webhook received twice carried the same idempotency key (a resend, not a second
 * transcription). `SAWT_JOBS_FILES=200` runs the full size.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { tempDir, until, type SawtProcess } from "../../support/sawt.ts";
import {
  api,
  expectResultsEqualRest,
  startJobsServer,
  submitUploads,
  toneModels,
  waitForJob,
  webhookReceiver,
  writeCalls,
} from "./support.ts";

const COUNT = Number(process.env.SAWT_JOBS_FILES ?? 40);
const KILLS = 5;
const SECRET = "crash-test-secret-0123456789abcdef0123";

let models: Awaited<ReturnType<typeof toneModels>>;
let source: ReturnType<typeof tempDir>;
let data: ReturnType<typeof tempDir>;
let receiver: ReturnType<typeof webhookReceiver>;
let sawt: SawtProcess;
let env: Record<string, string>;

beforeAll(async () => {
  models = await toneModels();
  source = tempDir("sawt-jobs-crash-");
  data = tempDir("sawt-jobs-crash-data-");
  receiver = webhookReceiver();
  env = {
    SAWT_JOBS_CALLBACK_HOSTS: `127.0.0.1:${receiver.port}`,
    SAWT_JOBS_WEBHOOK_SECRET: SECRET,
    SAWT_JOBS_WEBHOOK_RETRY_MS: "50",
    // One slot for jobs at a time keeps the job running long enough to be killed in the middle.
    SAWT_ASR_CONCURRENCY: "2",
    SAWT_JOBS_MAX_SLOTS: "1",
  };
});

afterAll(async () => {
  await sawt?.stop("SIGKILL");
  receiver?.stop();
  models?.remove();
  source?.remove();
  data?.remove();
});

/** Completed files per the store itself (read-only, beside the server). */
function completedInStore(jobId: string): number {
  const db = new Database(join(data.path, "jobs.db"), { readonly: true });
  try {
    const row = db.query("SELECT COUNT(*) AS n FROM job_files WHERE job_id = ? AND status = 'completed'").get(jobId);
    return (row as { n: number }).n;
  } finally {
    db.close();
  }
}

describe("jobs across kill -9", () => {
  test("does give every file exactly one result equal to REST after SIGKILLs at random moments", async () => {
    const paths = writeCalls(source.path, COUNT);
    sawt = await startJobsServer(models.dir, env, data.path);
    const key = (await sawt.createKey({ name: "crash", rpm: 1_000_000 })).key;
    const created = await submitUploads(sawt, key, paths, { callback_url: receiver.url });
    expect(created.status).toBe(202);
    const id = created.json.id as string;
    // Random moments by progress, not by time (40 tone files take a few hundred milliseconds): each
    // kill lands as soon as the store has at least its target of finished files, the targets rising.
    const targets = Array.from({ length: KILLS }, () => 1 + Math.floor(Math.random() * (COUNT - 2))).sort(
      (a, b) => a - b,
    );
    const progress: number[] = [];
    for (const target of targets) {
      await until(() => completedInStore(id) >= target, `${target} files done`, { timeoutMs: 60_000, everyMs: 1 });
      await sawt.stop("SIGKILL");
      progress.push(completedInStore(id));
      sawt = await startJobsServer(models.dir, env, data.path);
    }
    const job = await waitForJob(sawt, key, id);
    expect(job.status).toBe("completed");
    expect(job.counts).toEqual({ queued: 0, running: 0, completed: COUNT, failed: 0, cancelled: 0 });
    // The kills landed while the job ran: the first before every file was done.
    expect(progress[0]!).toBeLessThan(COUNT);
    await expectResultsEqualRest(sawt, key, job, paths, ["json", "vtt"]);

    const fileHooks = () =>
      receiver.received.filter((r) => r.event === "file.completed").map((r) => ({ ...r, json: JSON.parse(r.body) }));
    await until(() => new Set(fileHooks().map((h) => h.json.file.id)).size === COUNT, "a webhook for every file", {
      timeoutMs: 60_000,
      everyMs: 50,
    });
    const keysByFile = new Map<string, Set<string>>();
    for (const hook of fileHooks()) {
      const keys = keysByFile.get(hook.json.file.id) ?? new Set<string>();
      keys.add(hook.key!);
      keysByFile.set(hook.json.file.id, keys);
    }
    for (const keys of keysByFile.values()) expect(keys.size).toBe(1);
    const jobHooks = receiver.received.filter((r) => r.event === "job.completed");
    expect(new Set(jobHooks.map((h) => h.key)).size).toBe(1);
    const log = (await api(sawt, key, `/v1/asr/jobs/${id}/deliveries`)).json.data;
    expect(log).toHaveLength(COUNT + 1);
  }, 240_000);

  test("does stop cleanly on SIGTERM mid-job and finish the job after the restart", async () => {
    const paths = writeCalls(join(source.path, "term"), COUNT);
    const key = (await sawt.createKey({ name: "term", rpm: 1_000_000 })).key;
    const id = (await submitUploads(sawt, key, paths)).json.id as string;
    await Bun.sleep(100);
    expect(await sawt.stop("SIGTERM")).toBe(0);
    expect(completedInStore(id)).toBeLessThan(COUNT);
    sawt = await startJobsServer(models.dir, env, data.path);
    const job = await waitForJob(sawt, key, id);
    expect(job.counts.completed).toBe(COUNT);
    await expectResultsEqualRest(sawt, key, job, paths, ["json"]);
  }, 240_000);
});
