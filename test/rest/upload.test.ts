/**
 * Uploads against the real server process: streamed to a private temp file, refused with 413 as
 * soon as they cross 100 MB (never buffered whole — the server's peak RSS is checked as a sanity
 * bound), deleted in every outcome, and an internal failure answered 500 without leaking details.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startSawt, type SawtProcess } from "../support/sawt.ts";
import { call, expectRateHeaders, expectStandard, leftoverUploads, uploadForm } from "./support.ts";

const MB = 1024 * 1024;
const ROUTE = "/v1/asr/audio/transcriptions";
const BOUNDARY = "sawt-upload-test";
let sawt: SawtProcess;
let key: string;

beforeAll(async () => {
  sawt = await startSawt();
  key = (await sawt.createKey({ name: "upload", rpm: 1000 })).key;
});
afterAll(() => sawt.stop());

/** Peak and current resident memory of the server process, in bytes (Linux /proc). */
function memory(pid: number): { peak: number; rss: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) * 1024;
  return { peak: kb("VmHWM"), rss: kb("VmRSS") };
}

/** A chunked multipart body carrying `fileBytes` of audio, produced lazily; `gate` can pause it. */
function streamingUpload(fileBytes: number, options: { gateAfter?: number; gate?: Promise<void> } = {}) {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="long-call.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const chunk = new Uint8Array(256 * 1024).fill(0x41);
  let sent = -1;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent < 0) {
        controller.enqueue(head);
        sent = 0;
        return;
      }
      if (options.gate && options.gateAfter !== undefined && sent >= options.gateAfter) {
        await options.gate;
        options.gate = undefined;
      }
      if (sent >= fileBytes) {
        controller.enqueue(tail);
        controller.close();
        return;
      }
      const n = Math.min(chunk.length, fileBytes - sent);
      controller.enqueue(chunk.subarray(0, n));
      sent += n;
    },
  });
  return { body, sent: () => sent };
}

const post = (body: Blob | ReadableStream<Uint8Array>, signal?: AbortSignal) =>
  call(sawt.baseUrl + ROUTE, {
    method: "POST",
    headers: { "X-API-Key": key, "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    body,
    signal,
  });

async function waitFor<T>(probe: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await Bun.sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("uploads", () => {
  test("does refuse a 101 MB streamed upload with 413 while streaming, without buffering it", async () => {
    // Warm up the upload path so the baseline includes its code and buffers.
    await post(uploadFormBody(MB));
    const before = memory(sawt.proc.pid);
    const upload = streamingUpload(101 * MB);
    const reply = await post(upload.body);
    expectStandard(reply, 413, "File exceeds maximum size of 100 MB");
    expectRateHeaders(reply, 1000);
    const after = memory(sawt.proc.pid);
    // Sanity bound, not a benchmark: buffering the body would add ~100 MB to the peak.
    expect(after.peak - before.peak).toBeLessThan(48 * MB);
    expect(leftoverUploads(sawt.dataDir)).toEqual([]);
  });

  test("does refuse a declared Content-Length over the limit before reading the body", async () => {
    const reply = await post(new Blob([new Uint8Array(102 * MB)]));
    expectStandard(reply, 413, "File exceeds maximum size of 100 MB");
    expect(leftoverUploads(sawt.dataDir)).toEqual([]);
  });

  test("does write the upload to a private 0600 file while it streams and delete it afterwards", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const upload = streamingUpload(4 * MB, { gateAfter: 2 * MB, gate });
    const pending = post(upload.body);
    const name = await waitFor(() => leftoverUploads(sawt.dataDir)[0], "the temp file");
    expect(name).toMatch(/^upload-[0-9a-f]{32}\.wav$/);
    expect(statSync(join(sawt.dataDir, "tmp", name)).mode & 0o777).toBe(0o600);
    expect(statSync(join(sawt.dataDir, "tmp")).mode & 0o777).toBe(0o700);
    release();
    const reply = await pending;
    expect([200, 503]).toContain(reply.status); // 503 until an ASR engine is wired
    expect(leftoverUploads(sawt.dataDir)).toEqual([]);
  });

  test("does delete the partial upload when the client goes away mid-stream", async () => {
    const controller = new AbortController();
    const upload = streamingUpload(50 * MB, { gateAfter: MB, gate: new Promise(() => undefined) });
    const pending = post(upload.body, controller.signal).catch((error) => error);
    await waitFor(() => leftoverUploads(sawt.dataDir)[0], "the temp file");
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    await waitFor(() => (leftoverUploads(sawt.dataDir).length === 0 ? true : undefined), "the temp file to be deleted");
  });

  test("does answer 500 INTERNAL_ERROR without leaking paths when the upload dir is unusable", async () => {
    const tmp = join(sawt.dataDir, "tmp");
    rmSync(tmp, { recursive: true, force: true });
    writeFileSync(tmp, "not a directory");
    try {
      const reply = await call(sawt.baseUrl + ROUTE, {
        method: "POST",
        headers: { "X-API-Key": key },
        body: uploadForm({ name: "call.wav" }),
      });
      expectStandard(reply, 500, "Internal server error");
      expect(reply.text).not.toContain(sawt.dataDir);
      expect(reply.text).not.toMatch(/at .*\.ts|ENOTDIR|EEXIST/);
    } finally {
      rmSync(tmp, { force: true });
    }
  });
});

/** A small complete multipart body (with Content-Length). */
function uploadFormBody(size: number): Blob {
  return new Blob([
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="warm.wav"\r\n\r\n`,
    new Uint8Array(size),
    `\r\n--${BOUNDARY}--\r\n`,
  ]);
}
