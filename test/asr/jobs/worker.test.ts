/**
 * The jobs worker process (issue #28, priority): job files run in a process of their own that the
 * service starts when files are queued, at background CPU priority (SCHED_IDLE and nice 19 on
 * every thread, while the service's threads keep theirs), which leaves when idle, dies with the
 * service, is replaced when it crashes (the files it was running are done again, each still
 * ending with exactly one result), is paused outright while live work runs, and whose failure
 * to load its engine is reported at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { tempDir, until, type SawtProcess } from "../../support/sawt.ts";
import {
  api,
  expectResultsEqualRest,
  startJobsServer,
  submitPaths,
  toneModels,
  waitForJob,
  writeCalls,
} from "./support.ts";

/** Linux's SCHED_IDLE policy number. */
const SCHED_IDLE = 5;

let models: Awaited<ReturnType<typeof toneModels>>;
let source: ReturnType<typeof tempDir>;
let running: SawtProcess | undefined;

beforeAll(async () => {
  models = await toneModels();
  source = tempDir("sawt-jobs-worker-");
  writeCalls(join(source.path, "many"), 200);
  writeCalls(join(source.path, "few"), 5);
});

afterAll(async () => {
  await running?.stop("SIGKILL");
  models?.remove();
  source?.remove();
});

/** Fields of /proc/<pid>/task/<tid>/stat after the command name (which may hold spaces). */
function statFields(path: string): string[] {
  const text = readFileSync(path, "utf8");
  return text.slice(text.lastIndexOf(")") + 2).split(" ");
}

/** Each thread's scheduling policy and nice value (proc(5): fields 41 and 19). */
function threads(pid: number): Array<{ policy: number; nice: number }> {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      const fields = statFields(`/proc/${pid}/task/${tid}/stat`);
      return [{ policy: Number(fields[38]), nice: Number(fields[16]) }];
    } catch {
      return []; // the thread ended meanwhile
    }
  });
}

/** The process state letter (proc(5) field 3: R running, S sleeping, T stopped…). */
function stateOf(pid: number): string {
  return statFields(`/proc/${pid}/stat`)[0]!;
}

/** Pids of the service's jobs worker processes. */
function workers(servicePid: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        const parent = Number(statFields(`/proc/${pid}/stat`)[1]);
        return parent === servicePid && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("__jobs-worker");
      } catch {
        return false;
      }
    });
}

const alive = (pid: number) => existsSync(`/proc/${pid}`);

async function start(env: Record<string, string> = {}): Promise<{ sawt: SawtProcess; key: string }> {
  const sawt = await startJobsServer(models.dir, {
    SAWT_JOBS_SOURCE_DIRS: source.path,
    SAWT_ASR_CONCURRENCY: "2",
    SAWT_JOBS_WORKER_IDLE_MS: "1500",
    ...env,
  });
  running = sawt;
  return { sawt, key: (await sawt.createKey({ name: "worker", rpm: 1_000_000 })).key };
}

describe("jobs worker process", () => {
  test("does run job files in a background-priority process that leaves when idle", async () => {
    const { sawt, key } = await start();
    expect(workers(sawt.proc.pid)).toEqual([]); // nothing queued: no worker, no second copy of the models
    const id = (await submitPaths(sawt, key, { paths: ["many"] })).json.id as string;
    const [worker] = await until(() => workers(sawt.proc.pid).length > 0 && workers(sawt.proc.pid), "a worker");
    // Sampled while it transcribes: every thread in the background, the service's untouched.
    await until(async () => (await api(sawt, key, `/v1/asr/jobs/${id}`)).json.counts.completed > 0, "progress");
    const workerThreads = threads(worker!);
    expect(workerThreads.length).toBeGreaterThan(1);
    expect(workerThreads.every((t) => t.policy === SCHED_IDLE && t.nice === 19)).toBe(true);
    expect(threads(sawt.proc.pid).every((t) => t.policy === 0 && t.nice === 0)).toBe(true);
    const job = await waitForJob(sawt, key, id);
    expect(job.counts.completed).toBe(200);
    // jobs.worker_idle_ms (1.5 s here) after its last file, the worker leaves and frees its models.
    await until(() => !alive(worker!), "the idle worker to leave", { timeoutMs: 10_000, everyMs: 100 });
    // The next job starts a new one.
    const next = await waitForJob(sawt, key, (await submitPaths(sawt, key, { paths: ["few"] })).json.id);
    expect(next.counts.completed).toBe(5);
    await sawt.stop();
  }, 120_000);

  test("does replace a worker killed mid-job and give every file exactly one result equal to REST", async () => {
    const { sawt, key } = await start({ SAWT_JOBS_MAX_SLOTS: "1" });
    const id = (await submitPaths(sawt, key, { paths: ["many"] })).json.id as string;
    const [worker] = await until(() => workers(sawt.proc.pid).length > 0 && workers(sawt.proc.pid), "a worker");
    await until(async () => (await api(sawt, key, `/v1/asr/jobs/${id}`)).json.counts.completed >= 20, "progress", {
      everyMs: 5,
    });
    process.kill(worker!, "SIGKILL");
    const job = await waitForJob(sawt, key, id);
    expect(job.counts).toEqual({ queued: 0, running: 0, completed: 200, failed: 0, cancelled: 0 });
    expect(sawt.logs.some((line) => line.includes("jobs worker exited") && line.includes('"code":137'))).toBe(true);
    expect(workers(sawt.proc.pid).every((pid) => pid !== worker)).toBe(true);
    const paths = readdirSync(join(source.path, "many"))
      .sort()
      .map((name) => join(source.path, "many", name));
    await expectResultsEqualRest(sawt, key, job, paths, ["json"]);
    await sawt.stop();
  }, 180_000);

  test("does end the worker at once when the service is killed", async () => {
    const { sawt, key } = await start({ SAWT_JOBS_MAX_SLOTS: "1" });
    await submitPaths(sawt, key, { paths: ["many"] });
    const [worker] = await until(() => workers(sawt.proc.pid).length > 0 && workers(sawt.proc.pid), "a worker");
    await sawt.stop("SIGKILL");
    await until(() => !alive(worker!), "the orphaned worker to end", { timeoutMs: 5_000, everyMs: 20 });
  }, 60_000);

  test("does report a worker that cannot load its engine at once, and run the files once it can", async () => {
    const { sawt, key } = await start();
    // The service loaded its recogniser; the worker will find none.
    const pack = readdirSync(models.dir)[0]!;
    renameSync(join(models.dir, pack), join(source.path, pack));
    try {
      const id = (await submitPaths(sawt, key, { paths: ["few"] })).json.id as string;
      await until(
        () => sawt.logs.some((line) => line.includes("jobs worker cannot transcribe")),
        "the failure logged",
        {
          timeoutMs: 15_000,
        },
      );
      expect((await api(sawt, key, `/v1/asr/jobs/${id}`)).json.counts.queued).toBe(5);
      renameSync(join(source.path, pack), join(models.dir, pack));
      const job = await waitForJob(sawt, key, id, 90_000);
      expect(job.counts.completed).toBe(5);
    } finally {
      if (existsSync(join(source.path, pack))) renameSync(join(source.path, pack), join(models.dir, pack));
    }
    await sawt.stop();
  }, 120_000);

  test("does pause the worker outright while live work runs and let it go on after", async () => {
    const { sawt, key } = await start({ SAWT_JOBS_MAX_SLOTS: "1" });
    const id = (await submitPaths(sawt, key, { paths: ["many"] })).json.id as string;
    const [worker] = await until(() => workers(sawt.proc.pid).length > 0 && workers(sawt.proc.pid), "a worker");
    await until(async () => (await api(sawt, key, `/v1/asr/jobs/${id}`)).json.counts.completed > 0, "progress");
    expect(stateOf(worker!)).not.toBe("T");
    // A long synthesis is live work on the TTS gate: the worker is stopped while it runs.
    const states = new Set<string>();
    let speaking = true;
    const speech = fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
      method: "POST",
      headers: { "X-API-Key": key, "content-type": "application/json" },
      body: JSON.stringify({ input: "هذا نص طويل للاختبار. ".repeat(300), response_format: "wav" }),
    }).then(async (reply) => {
      expect(reply.status).toBe(200);
      await reply.arrayBuffer();
      speaking = false;
    });
    while (speaking) {
      states.add(stateOf(worker!));
      await Bun.sleep(5);
    }
    await speech;
    expect(states.has("T")).toBe(true);
    await until(() => stateOf(worker!) !== "T", "the worker to go on", { timeoutMs: 5_000 });
    const job = await waitForJob(sawt, key, id);
    expect(job.counts.completed).toBe(200);
    await sawt.stop();
  }, 120_000);

  test("does not outlive a service stopped while its worker starts paused under live work", async () => {
    const { sawt, key } = await start({ SAWT_JOBS_MAX_SLOTS: "1" });
    const leave = new AbortController();
    const speaking = fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
      method: "POST",
      headers: { "X-API-Key": key, "content-type": "application/json" },
      body: JSON.stringify({ input: "هذا نص طويل للاختبار. ".repeat(300), response_format: "wav" }),
      signal: leave.signal,
    }).catch(() => undefined);
    await Bun.sleep(100);
    await submitPaths(sawt, key, { paths: ["many"] });
    const [worker] = await until(() => workers(sawt.proc.pid).length > 0 && workers(sawt.proc.pid), "a worker");
    await until(() => stateOf(worker!) === "T", "the worker paused by the live synthesis", { timeoutMs: 10_000 });
    // The client leaves (its synthesis is cancelled, so the drain has nothing to wait for), and
    // the service stops. stop() resolves once the service has exited and its log pipe closed: a
    // worker left alive (it inherits the pipe) would hold it open.
    leave.abort();
    const stopped = await Promise.race([sawt.stop().then(() => true), Bun.sleep(15_000).then(() => false)]);
    await speaking;
    expect(stopped).toBe(true);
    await until(() => !alive(worker!) || stateOf(worker!) === "Z", "the worker to end", { timeoutMs: 5_000 });
  }, 60_000);

  test("does start a new worker on the reloaded models and finish the job on it", async () => {
    const { sawt, key } = await start({ SAWT_JOBS_MAX_SLOTS: "1" });
    const admin = (await sawt.createKey({ name: "admin", admin: true, rpm: 1_000_000 })).key;
    const id = (await submitPaths(sawt, key, { paths: ["many"] })).json.id as string;
    const [first] = await until(() => workers(sawt.proc.pid).length > 0 && workers(sawt.proc.pid), "a worker");
    await until(async () => (await api(sawt, key, `/v1/asr/jobs/${id}`)).json.counts.completed > 0, "progress");
    const reload = await api(sawt, admin, "/v1/admin/models/reload", { method: "POST" });
    expect(reload.status).toBe(200);
    await until(() => workers(sawt.proc.pid).some((pid) => pid !== first), "a new worker after the reload");
    // The old worker was stopped before the new one started: only the new one is left.
    expect(alive(first!) && stateOf(first!) !== "Z").toBe(false);
    const job = await waitForJob(sawt, key, id);
    expect(job.counts).toEqual({ queued: 0, running: 0, completed: 200, failed: 0, cancelled: 0 });
    await sawt.stop();
  }, 120_000);
});
