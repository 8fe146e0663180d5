/**
 * `sawt jobs` against a running service (real CLI process, real HTTP): submit a folder and wait,
 * list, show, fetch results into a folder, cancel; and `resubmit`, which moves a dead box's
 * unfinished files to another box, where they complete with the same answers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, startSawt, tempDir, type SawtProcess } from "../../support/sawt.ts";
import { api, startJobsServer, submitUploads, textOf, toneModels, waitForJob, writeCalls } from "./support.ts";

let models: Awaited<ReturnType<typeof toneModels>>;
let work: ReturnType<typeof tempDir>;
let sawt: SawtProcess;
let key: string;
let paths: string[];

beforeAll(async () => {
  models = await toneModels();
  work = tempDir("sawt-jobs-cli-");
  paths = writeCalls(join(work.path, "calls"), 4);
  sawt = await startJobsServer(models.dir);
  key = (await sawt.createKey({ name: "cli", rpm: 100_000 })).key;
});

afterAll(async () => {
  await sawt?.stop();
  models?.remove();
  work?.remove();
});

const cli = (args: string[], url = sawt.baseUrl) =>
  runCli(["jobs", ...args, "--url", url], { env: { SAWT_API_KEY: key } });

describe("sawt jobs", () => {
  test("does submit a folder, wait for it and write every transcript with results --out", async () => {
    const submitted = await cli(["submit", join(work.path, "calls"), "--wait"]);
    expect(submitted.stderr).toContain("4/4 completed");
    expect(submitted.code).toBe(0);
    const id = submitted.stdout.trim();
    expect(id).toMatch(/^job_box1_/);
    const out = join(work.path, "out");
    expect((await cli(["results", id, "--out", out])).code).toBe(0);
    const written = readdirSync(out).sort();
    expect(written).toEqual(paths.map((_, i) => `file_000${i + 1}-call-000${i}.txt`));
    expect(readFileSync(join(out, written[2]!), "utf8")).toBe(`${textOf(2)}\n`);
    const listed = await cli(["list"]);
    expect(listed.stdout).toContain(id);
    const shown = JSON.parse((await cli(["show", id, "--json"])).stdout);
    expect(shown.counts.completed).toBe(4);
  });

  test("does cancel a job and say why without a key", async () => {
    const created = await submitUploads(sawt, key, [...paths, ...paths, ...paths]);
    const cancelled = await cli(["cancel", created.json.id]);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stderr).toContain("cancelled");
    const noKey = await runCli(["jobs", "list", "--url", sawt.baseUrl], { env: { SAWT_API_KEY: "" } });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("API key");
  });

  test("does move a dead box's unfinished files to another box with resubmit", async () => {
    const dead = tempDir("sawt-jobs-dead-");
    const noModels = tempDir("sawt-jobs-nomodels-");
    // A box without a recogniser pack accepts a job but cannot run it; then it dies.
    const box = await startSawt({
      dataDir: dead.path,
      env: { SAWT_MODELS_DIR: noModels.path, SAWT_JOBS_BOX_ID: "box2", SAWT_LOG_LEVEL: "warn" },
    });
    const boxKey = (await box.createKey({ name: "box2" })).key;
    const created = await submitUploads(box, boxKey, paths);
    expect(created.status).toBe(202);
    await box.stop("SIGKILL");
    const moved = await runCli(["jobs", "resubmit", "--url", sawt.baseUrl, "--data-dir", dead.path], {
      env: { SAWT_API_KEY: key },
    });
    expect(moved.code).toBe(0);
    expect(moved.stdout).toContain(`${created.json.id} -> job_box1_`);
    const newId = /-> (job_\S+)/.exec(moved.stdout)![1]!;
    const job = await waitForJob(sawt, key, newId);
    expect(job.counts.completed).toBe(4);
    for (const [i, file] of job.files.entries())
      expect((await api(sawt, key, `/v1/asr/jobs/${job.id}/files/${file.id}/result`)).json.text).toBe(textOf(i));
    // The dead box, back, has nothing left to do: its job was cancelled there.
    const back = await startSawt({
      dataDir: dead.path,
      env: { SAWT_MODELS_DIR: noModels.path, SAWT_JOBS_BOX_ID: "box2" },
    });
    expect((await api(back, boxKey, `/v1/asr/jobs/${created.json.id}`)).json.status).toBe("cancelled");
    await back.stop();
    dead.remove();
    noModels.remove();
  });
});
