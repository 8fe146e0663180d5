/**
 * Shared by the job tests: short recordings the constructed tone recogniser reads back exactly
 * (each a different text), a server started with the tone CTC pack and job settings, helpers to
 * submit a job, wait for it, and compare every result with the synchronous REST answer.
 */
import { expect } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { encodeWav } from "../../../src/audio/wav.ts";
import { letterToneAudio, writeToneCtcPack } from "../../support/models/ctc.ts";
import { startSawt, tempDir, until, type SawtProcess } from "../../support/sawt.ts";
import { concat, silence } from "../support.ts";

const LETTERS = "المسعيكبرحنتهودفقشخجصطز";

/** The text of recording `i`: two short words, different for every i below 400. */
export function textOf(i: number): string {
  const a = LETTERS[i % LETTERS.length]!;
  const b = LETTERS[Math.floor(i / LETTERS.length) % LETTERS.length]!;
  return `${a}${b}ا ${b}${a}`;
}

/** Writes `count` WAV recordings (16 kHz) into `dir`; returns their paths in order. */
export function writeCalls(dir: string, count: number): string[] {
  mkdirSync(dir, { recursive: true });
  return Array.from({ length: count }, (_, i) => {
    const samples = concat(silence(0.2), letterToneAudio(textOf(i)), silence(0.3));
    const path = join(dir, `call-${String(i).padStart(4, "0")}.wav`);
    writeFileSync(path, encodeWav(samples, 16000));
    return path;
  });
}

/** A models folder with the tone CTC pack. */
export async function toneModels(): Promise<{ dir: string; remove(): void }> {
  const models = tempDir("sawt-jobs-models-");
  await writeToneCtcPack(join(models.path, "tone-ctc"));
  return { dir: models.path, remove: models.remove };
}

/** Starts a server with the tone pack and `env`; resolves once ASR serves. */
export async function startJobsServer(
  modelsDir: string,
  env: Record<string, string> = {},
  dataDir?: string,
): Promise<SawtProcess> {
  const sawt = await startSawt({
    env: { SAWT_MODELS_DIR: modelsDir, SAWT_LOG_LEVEL: "warn", SAWT_JOBS_BOX_ID: "box1", ...env },
    ...(dataDir ? { dataDir } : {}),
  });
  const healthy = async () => (await fetch(`${sawt.baseUrl}/v1/asr/health`).catch(() => undefined))?.status === 200;
  await until(healthy, "the ASR engine to serve", { timeoutMs: 30_000, everyMs: 50 });
  return sawt;
}

/** A JSON request with the key. */
export async function api(sawt: SawtProcess, key: string, path: string, init: RequestInit = {}) {
  const res = await fetch(`${sawt.baseUrl}${path}`, {
    ...init,
    headers: { "X-API-Key": key, ...(init.headers as Record<string, string>) },
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, headers: res.headers };
}

/** Submits a job of uploaded files. */
export function submitUploads(
  sawt: SawtProcess,
  key: string,
  paths: readonly string[],
  fields: Record<string, string> = {},
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const path of paths) form.append("file", Bun.file(path), path.slice(path.lastIndexOf("/") + 1));
  return api(sawt, key, "/v1/asr/jobs", { method: "POST", body: form });
}

/** Submits a job of source-folder paths. */
export function submitPaths(sawt: SawtProcess, key: string, body: Record<string, unknown>) {
  return api(sawt, key, "/v1/asr/jobs", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** Waits until the job has ended; resolves to its final GET. */
export async function waitForJob(sawt: SawtProcess, key: string, id: string, timeoutMs = 120_000) {
  let last: any;
  return until(
    async () => {
      last = (await api(sawt, key, `/v1/asr/jobs/${id}`)).json;
      return ["completed", "failed", "cancelled"].includes(last?.status) ? last : undefined;
    },
    () => `job ${id} to end (last: ${JSON.stringify(last?.counts)})`,
    { timeoutMs, everyMs: 100 },
  );
}

/** The synchronous REST answer for `path` in `format`. */
export async function restAnswer(sawt: SawtProcess, key: string, path: string, format: string): Promise<string> {
  const form = new FormData();
  form.append("response_format", format);
  form.append("file", Bun.file(path), path.slice(path.lastIndexOf("/") + 1));
  const reply = await api(sawt, key, "/v1/asr/audio/transcriptions", { method: "POST", body: form });
  expect(reply.status).toBe(200);
  return reply.text;
}

/** `text` as Sawt writes it in transcripts (POST /v1/asr/format, the server's defaults). */
export async function writtenForm(sawt: SawtProcess, key: string, text: string): Promise<string> {
  const reply = await api(sawt, key, "/v1/asr/format", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ text }),
  });
  expect(reply.status).toBe(200);
  return reply.json.text;
}

/** Asserts each file's result equals the REST answer for its recording, in every format. */
export async function expectResultsEqualRest(
  sawt: SawtProcess,
  key: string,
  job: { id: string; files: Array<{ id: string; status: string }> },
  paths: readonly string[],
  formats: readonly string[] = ["json", "verbose_json", "srt", "vtt"],
): Promise<void> {
  expect(job.files.map((f) => f.status)).toEqual(paths.map(() => "completed"));
  for (const [i, file] of job.files.entries()) {
    for (const format of formats) {
      const result = await api(sawt, key, `/v1/asr/jobs/${job.id}/files/${file.id}/result?response_format=${format}`);
      expect(result.status).toBe(200);
      expect(result.text).toBe(await restAnswer(sawt, key, paths[i]!, format));
    }
    if (formats.includes("json")) {
      const json = (await api(sawt, key, `/v1/asr/jobs/${job.id}/files/${file.id}/result?response_format=json`)).json;
      // The recording's words in their written forms (some pairs are number words: ست → 6).
      expect(json.text).toBe(await writtenForm(sawt, key, textOf(i)));
    }
  }
}

/** One webhook the receiver took. */
export interface Received {
  readonly body: string;
  readonly signature: string | null;
  readonly key: string | null;
  readonly event: string | null;
}

/**
 * A local webhook receiver on `port` (0: a free one): records every POST, answers 200 (or what
 * `answer` says); `stop()` takes it down (connections refused), `start()` brings it back on the
 * same port.
 */
export function webhookReceiver(port = 0, answer: () => number = () => 200) {
  const received: Received[] = [];
  const serve = (at: number) =>
    Bun.serve({
      port: at,
      hostname: "127.0.0.1",
      fetch: async (request) => {
        received.push({
          body: await request.text(),
          signature: request.headers.get("sawt-signature"),
          key: request.headers.get("idempotency-key"),
          event: request.headers.get("sawt-event"),
        });
        return new Response(null, { status: answer() });
      },
    });
  let server: ReturnType<typeof Bun.serve> | undefined = serve(port);
  const bound = server.port!;
  return {
    received,
    port: bound,
    url: `http://127.0.0.1:${bound}/hooks`,
    stop: () => {
      server?.stop(true);
      server = undefined;
    },
    start: () => {
      server ??= serve(bound);
    },
  };
}
