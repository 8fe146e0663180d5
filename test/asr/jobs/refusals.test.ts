/**
 * What a job refuses, in the contract's error shapes (real server, real HTTP): paths that leave
 * the source folders (`../`, absolute paths elsewhere, a symlink out, a folder holding one),
 * callback URLs to hosts the operator did not allow, more files than `jobs.max_files` (uploaded
 * or named), bad transcription options, and unknown jobs. Nothing is created for a refused job.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { tempDir, type SawtProcess } from "../../support/sawt.ts";
import { api, startJobsServer, submitPaths, submitUploads, toneModels, writeCalls } from "./support.ts";

const MAX_FILES = 5;

let models: Awaited<ReturnType<typeof toneModels>>;
let root: ReturnType<typeof tempDir>;
let sawt: SawtProcess;
let key: string;
let inside: string;
let outsideFile: string;

beforeAll(async () => {
  models = await toneModels();
  root = tempDir("sawt-jobs-paths-");
  inside = join(root.path, "recordings");
  outsideFile = writeCalls(join(root.path, "private"), 1)[0]!;
  writeCalls(join(inside, "ok"), 2);
  symlinkSync(outsideFile!, join(inside, "escape.wav"));
  mkdirSync(join(inside, "mixed"));
  writeCalls(join(inside, "mixed"), 1);
  symlinkSync(join(root.path, "private"), join(inside, "mixed", "link-out"));
  writeCalls(join(inside, "many"), MAX_FILES + 1);
  sawt = await startJobsServer(models.dir, {
    SAWT_JOBS_SOURCE_DIRS: inside,
    SAWT_JOBS_MAX_FILES: String(MAX_FILES),
    SAWT_JOBS_CALLBACK_HOSTS: "hooks.example.lan:8443",
    SAWT_JOBS_WEBHOOK_SECRET: "s".repeat(40),
  });
  key = (await sawt.createKey({ name: "refusals", rpm: 100_000 })).key;
});

afterAll(async () => {
  await sawt?.stop();
  models?.remove();
  root?.remove();
});

function expectValidation(reply: { status: number; json: any }, field: string, message?: RegExp) {
  expect(reply.status).toBe(422);
  expect(reply.json.error).toBe("validation_error");
  expect(reply.json.detail).toBe("Request validation failed");
  expect(reply.json.errors.map((e: { field: string }) => e.field)).toEqual([field]);
  if (message) expect(reply.json.errors[0].message).toMatch(message);
}

function expectStandard(reply: { status: number; json: any }, status: number, detail: RegExp) {
  expect(reply.status).toBe(status);
  expect(Object.keys(reply.json).sort()).toEqual(["code", "detail", "error"]);
  expect(reply.json.code).toBe(`HTTP_${status}`);
  expect(reply.json.detail).toMatch(detail);
}

describe("job refusals", () => {
  test.each([
    ["a relative path climbing out", "../private/call-0000.wav", /Outside the allowed source folders$/],
    ["an absolute path elsewhere", "/etc/passwd", /Outside the allowed source folders$/],
    ["a climb hidden in the middle", "ok/../../private/call-0000.wav", /Outside the allowed source folders$/],
    ["a symlink that leads out", "escape.wav", /links out/],
    ["a folder holding a symlink out", "mixed", /links out/],
    ["a missing file", "ok/none.wav", /No such file/],
  ])("does refuse %s with 422", async (_what, path, message) => {
    expectValidation(await submitPaths(sawt, key, { paths: ["ok", path] }), "body.paths[1]", message);
  });

  test("does refuse an absolute path to an outside file even when it exists", async () => {
    expectValidation(await submitPaths(sawt, key, { paths: [outsideFile] }), "body.paths[0]", /Outside/);
  });

  test("does refuse a callback URL whose host is not allowed", async () => {
    const bad = ["http://evil.example.com/hook", "http://hooks.example.lan:9999/hook", "file:///etc/passwd"];
    for (const url of bad)
      expectValidation(await submitPaths(sawt, key, { paths: ["ok"], callback_url: url }), "body.callback_url");
    const allowed = await submitPaths(sawt, key, { paths: ["ok"], callback_url: "https://hooks.example.lan:8443/h" });
    expect(allowed.status).toBe(202);
  });

  test("does refuse a callback URL on an upload the same way", async () => {
    const reply = await submitUploads(sawt, key, [outsideFile], { callback_url: "http://127.0.0.1:1/x" });
    expectValidation(reply, "form.callback_url", /not allowed/);
  });

  test("does refuse more files than jobs.max_files with 413, named or uploaded", async () => {
    const tooMany = Array.from({ length: 10_000 }, (_, i) => `ok/${i}.wav`);
    expectStandard(await submitPaths(sawt, key, { paths: tooMany }), 413, /at most 5 files/);
    expectStandard(await submitPaths(sawt, key, { paths: ["many"] }), 413, /at most 5 files/);
    const files = writeCalls(join(root.path, "upload"), MAX_FILES + 1);
    expectStandard(await submitUploads(sawt, key, files), 413, /at most 5 files/);
  });

  test.each([
    ["response_format", { response_format: "docx" }],
    ["language", { language: "de" }], // en is served by the built-in recogniser (issue #32)
    ["temperature", { temperature: 3 }],
    ["timestamp_granularities", { timestamp_granularities: ["sentence"] }],
  ])("does refuse a bad %s with 422", async (field, options) => {
    const reply = await submitPaths(sawt, key, { paths: ["ok"], ...options });
    expect(reply.status).toBe(422);
    expect(reply.json.errors[0].field).toStartWith(`body.${field}`);
  });

  test("does refuse a job without paths, and a body that is neither form nor JSON", async () => {
    expectValidation(await submitPaths(sawt, key, { paths: [] }), "body.paths");
    expectValidation(await submitPaths(sawt, key, {}), "body.paths");
    const text = await api(sawt, key, "/v1/asr/jobs", {
      method: "POST",
      body: "x",
      headers: { "content-type": "text/plain" },
    });
    expectStandard(text, 400, /multipart\/form-data or application\/json/);
  });

  test("does answer 404 for an unknown job, an unknown file and a malformed id", async () => {
    expectStandard(await api(sawt, key, "/v1/asr/jobs/job_box1_000000000000000000000"), 404, /Job not found/);
    expectStandard(await api(sawt, key, "/v1/asr/jobs/..%2F..%2Fetc"), 404, /Job not found|Not Found/i);
    const id = (await submitPaths(sawt, key, { paths: ["ok"] })).json.id;
    expectStandard(await api(sawt, key, `/v1/asr/jobs/${id}/files/file_9999/result`), 404, /File not found/);
  });

  test("does refuse a bad list query with 422", async () => {
    expectValidation(await api(sawt, key, "/v1/asr/jobs?status=done"), "query.status");
    expectValidation(await api(sawt, key, "/v1/asr/jobs?limit=0"), "query.limit");
    expectValidation(await api(sawt, key, "/v1/asr/jobs?after=x"), "query.after");
  });
});
