/**
 * The built-in recogniser from the compiled binary (issue #32, acceptance 2): `bun run build`
 * fetches the pinned Moonshine tiny English files and embeds them; the binary, started from `/`
 * with an empty models folder and nothing else on disk to read them from, transcribes the English
 * recording (exactly its reference where the shared recording is present) and refuses Arabic
 * with the documented 400.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { call, uploadForm } from "../rest/support.ts";
import { englishSpeech, expectTranscript } from "../support/fixtures/speech.ts";
import { ROOT, startSawt, tempDir, until, type SawtProcess } from "../support/sawt.ts";

const speech = englishSpeech();
const work = tempDir("sawt-builtin-binary-");
let sawt: SawtProcess;
let key: string;

beforeAll(async () => {
  const build = Bun.spawnSync([process.execPath, "installer/build.ts"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
  const models = join(work.path, "models");
  mkdirSync(models);
  // SAWT_BUILTIN_ASR_DIR unset: the binary must use what it carries.
  sawt = await startSawt({ binary: true, cwd: "/", env: { SAWT_MODELS_DIR: models, SAWT_ASR_BUILTIN: "true" } });
  key = (await sawt.createKey({ name: "builtin-binary" })).key;
  await until(
    async () => ((await fetch(`${sawt.baseUrl}/v1/asr/health`)).status === 200 ? true : undefined),
    "ASR ready",
  );
}, 300_000);

afterAll(async () => {
  await sawt?.stop();
  work.remove();
});

describe("the built-in recogniser in the compiled binary", () => {
  test("does transcribe the English recording with no models installed", async () => {
    const reply = await call(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
      method: "POST",
      headers: { "X-API-Key": key },
      body: uploadForm({ name: "speech.wav", data: readFileSync(speech.wav) }, { language: "en" }),
    });
    expect(reply.status).toBe(200);
    expect(reply.json.language).toBe("en");
    expectTranscript(speech, reply.json.text);
  }, 60_000);

  test("does answer language=ar with the 400 naming what to install", async () => {
    const reply = await call(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
      method: "POST",
      headers: { "X-API-Key": key },
      body: uploadForm({ name: "speech.wav", data: readFileSync(speech.wav) }, { language: "ar" }),
    });
    expect(reply.status).toBe(400);
    expect(reply.json.detail).toContain("docs/arabic-models.md");
  });

  test("does run a transcription job in the binary's worker process and give the REST answer", async () => {
    // The binary starts itself as the jobs worker (`sawt __jobs-worker`), which loads the embedded
    // recogniser on its own and answers exactly what the synchronous route answers.
    const key = (await sawt.createKey({ name: "builtin-binary-job", rpm: 100_000 })).key; // polled
    const rest = await call(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
      method: "POST",
      headers: { "X-API-Key": key },
      body: uploadForm({ name: "speech.wav", data: readFileSync(speech.wav) }, { language: "en" }),
    });
    expect(rest.status).toBe(200);
    const created = await call(`${sawt.baseUrl}/v1/asr/jobs`, {
      method: "POST",
      headers: { "X-API-Key": key },
      body: uploadForm({ name: "speech.wav", data: readFileSync(speech.wav) }, { language: "en" }),
    });
    expect(created.status).toBe(202);
    const id = created.json.id as string;
    const job = await until(
      async () => {
        const got = await call(`${sawt.baseUrl}/v1/asr/jobs/${id}`, { headers: { "X-API-Key": key } });
        return ["completed", "failed"].includes(got.json.status) ? got.json : undefined;
      },
      "the job to end",
      { timeoutMs: 120_000, everyMs: 200 },
    );
    expect(job.counts.completed).toBe(1);
    const result = await call(`${sawt.baseUrl}/v1/asr/jobs/${id}/files/${job.files[0].id}/result`, {
      headers: { "X-API-Key": key },
    });
    expect(result.status).toBe(200);
    expect(result.json).toEqual(rest.json);
    expect(sawt.logs.filter((line) => line.includes('"level":"error"'))).toEqual([]);
  }, 180_000);
});
