/**
 * Transcription jobs through the running service (`sawt serve` as a child process, real HTTP,
 * real SQLite): a job of many short files, uploaded or named under a source folder, completes and
 * every result equals the synchronous REST answer for that file in json, verbose_json, srt and
 * vtt; jobs list, page, cancel and delete as the wire shape says. `SAWT_JOBS_FILES=200` runs the
 * issue's full size (40 by default, to keep the suite's time modest).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir, type SawtProcess } from "../../support/sawt.ts";
import {
  api,
  expectResultsEqualRest,
  startJobsServer,
  submitPaths,
  submitUploads,
  toneModels,
  waitForJob,
  writeCalls,
} from "./support.ts";

const COUNT = Number(process.env.SAWT_JOBS_FILES ?? 40);

let models: Awaited<ReturnType<typeof toneModels>>;
let source: ReturnType<typeof tempDir>;
let sawt: SawtProcess;
let key: string;
let paths: string[];

beforeAll(async () => {
  models = await toneModels();
  source = tempDir("sawt-jobs-source-");
  paths = writeCalls(join(source.path, "day"), COUNT);
  sawt = await startJobsServer(models.dir, { SAWT_JOBS_SOURCE_DIRS: source.path, SAWT_ASR_CONCURRENCY: "2" });
  key = (await sawt.createKey({ name: "jobs", rpm: 1_000_000 })).key;
});

afterAll(async () => {
  await sawt?.stop();
  models?.remove();
  source?.remove();
});

describe("transcription jobs", () => {
  test("does give every uploaded file the synchronous REST answer when the job completes", async () => {
    const created = await submitUploads(sawt, key, paths, { response_format: "verbose_json" });
    expect(created.status).toBe(202);
    expect(created.json).toEqual({
      id: expect.stringMatching(/^job_box1_[0-9a-z]{21}$/),
      status: "queued",
      files: paths.map((p, i) => ({
        id: `file_${String(i + 1).padStart(4, "0")}`,
        name: p.slice(p.lastIndexOf("/") + 1),
        status: "queued",
      })),
    });
    const job = await waitForJob(sawt, key, created.json.id);
    expect(job).toMatchObject({
      status: "completed",
      counts: { queued: 0, running: 0, completed: COUNT, failed: 0, cancelled: 0 },
      created_at: expect.any(Number),
      completed_at: expect.any(Number),
    });
    await expectResultsEqualRest(sawt, key, job, paths);
    // The job's default format is the one it was created with; spooled audio is gone (D18).
    const first = await api(sawt, key, `/v1/asr/jobs/${job.id}/files/file_0001/result`);
    expect(first.json.task).toBe("transcribe");
    expect(readdirSync(join(sawt.dataDir, "jobs", job.id))).toEqual([]);
  }, 300_000);

  test("does give every source-folder file the synchronous REST answer when the job names its folder", async () => {
    const created = await submitPaths(sawt, key, { paths: ["day"], response_format: "srt" });
    expect(created.status).toBe(202);
    expect(created.json.files).toHaveLength(COUNT);
    expect(created.json.files[0]).toEqual({ id: "file_0001", name: "day/call-0000.wav", status: "queued" });
    const job = await waitForJob(sawt, key, created.json.id);
    await expectResultsEqualRest(sawt, key, job, paths, ["json", "srt"]);
    expect(existsSync(paths[0]!)).toBe(true); // the operator's recordings are never deleted
  }, 300_000);

  test("does page the list newest first and filter it by status", async () => {
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await submitPaths(sawt, key, { paths: [paths[i]] })).json.id);
    await Promise.all(made.map((id) => waitForJob(sawt, key, id)));
    const page1 = await api(sawt, key, "/v1/asr/jobs?limit=2&status=completed");
    expect(page1.status).toBe(200);
    expect(page1.json.object).toBe("list");
    expect(page1.json.data.map((j: { id: string }) => j.id)).toEqual([made[2], made[1]]);
    expect(page1.json.has_more).toBe(true);
    const page2 = await api(sawt, key, `/v1/asr/jobs?limit=2&status=completed&after=${page1.json.last_id}`);
    expect(page2.json.data[0].id).toBe(made[0]);
    expect((await api(sawt, key, "/v1/asr/jobs?status=cancelled")).json.data).toEqual([]);
  });

  test("does hide a job from another key and show it to an admin key", async () => {
    const id = (await submitPaths(sawt, key, { paths: [paths[0]] })).json.id;
    const other = (await sawt.createKey({ name: "other" })).key;
    const admin = (await sawt.createKey({ name: "admin", admin: true })).key;
    expect((await api(sawt, other, `/v1/asr/jobs/${id}`)).status).toBe(404);
    expect((await api(sawt, admin, `/v1/asr/jobs/${id}`)).status).toBe(200);
  });

  test("does cancel the unfinished files and delete the job with its results", async () => {
    const created = await submitUploads(sawt, key, paths);
    const cancelled = await api(sawt, key, `/v1/asr/jobs/${created.json.id}/cancel`, { method: "POST" });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.status).toBe("cancelled");
    expect(cancelled.json.counts.cancelled).toBeGreaterThan(0);
    expect(cancelled.json.counts.queued + cancelled.json.counts.running).toBe(0);
    const removed = await api(sawt, key, `/v1/asr/jobs/${created.json.id}`, { method: "DELETE" });
    expect(removed.json).toEqual({ id: created.json.id, object: "job", deleted: true });
    expect((await api(sawt, key, `/v1/asr/jobs/${created.json.id}`)).status).toBe(404);
    expect(existsSync(join(sawt.dataDir, "jobs", created.json.id))).toBe(false);
  });

  test("does report the job files and audio transcribed in the metrics", async () => {
    const admin = (await sawt.createKey({ name: "metrics", admin: true })).key;
    const text = (await api(sawt, admin, "/metrics")).text;
    expect(text).toMatch(/sawt_job_files\{state="completed"\} \d+/);
    expect(Number(/^sawt_job_audio_seconds_total (\S+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
  });
});
