/**
 * Issue #16 acceptance 1: ten uploads of a one-hour silent FLAC (640 KB each, 230 MB each once
 * decoded) at once. Every one is answered 200 or 503, the server's peak resident memory (VmHWM)
 * stays under the README's bound for its configuration, and it is healthy afterwards with no
 * upload or spool file left behind.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeToneCtcPack } from "../support/models/ctc.ts";
import { ffmpegSync } from "../support/audio.ts";
import { startSawt, tempDir, until, type SawtProcess } from "../support/sawt.ts";
import { call, leftoverUploads, uploadForm } from "../rest/support.ts";
import { recordFigures } from "./server.ts";
import { memoryOf, mib } from "./support.ts";

const MiB = 1024 * 1024;
/** The configuration under test (README "Memory under load"). */
const CONFIG = { concurrency: 3, budgetMb: 16, requestPcmS: 100 };
/** W_recogniser of the tone CTC test pack (a few KB of weights; its 30 s features are ~4 MB). */
const RECOGNISER_WORKING_SET = 32 * MiB;
const SLACK = 64 * MiB;

let sawt: SawtProcess;
let key: string;
const work = tempDir("sawt-memory-");
let flac: Uint8Array;

beforeAll(async () => {
  const models = join(work.path, "models");
  await writeToneCtcPack(join(models, "tone-ctc"));
  const path = join(work.path, "hour.flac");
  ffmpegSync(["-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "3600", "-c:a", "flac", path]);
  flac = readFileSync(path);
  sawt = await startSawt({
    env: {
      SAWT_MODELS_DIR: models,
      SAWT_ASR_CONCURRENCY: String(CONFIG.concurrency),
      SAWT_ASR_PCM_BUDGET_MB: String(CONFIG.budgetMb),
      SAWT_ASR_REQUEST_PCM_S: String(CONFIG.requestPcmS),
    },
  });
  key = (await sawt.createKey({ name: "memory", rpm: 10_000 })).key;
  const healthy = async () => (await fetch(`${sawt.baseUrl}/v1/asr/health`)).status === 200;
  await until(healthy, "the ASR engine to serve", { timeoutMs: 30_000, everyMs: 100 });
});

afterAll(async () => {
  await sawt?.stop();
  work.remove();
});

describe("decoded audio memory", () => {
  test("does answer ten one-hour FLAC uploads at once with 200 or 503 within the documented RSS bound", async () => {
    expect(flac.byteLength).toBeLessThan(1 * MiB);
    // One small request first, so the idle figure includes a warmed-up recogniser and HTTP path.
    const warm = await call(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
      method: "POST",
      headers: { "X-API-Key": key },
      body: uploadForm({ name: "warm.flac", data: flac.subarray(0, 0) }),
    });
    expect(warm.status).toBe(400);
    const idle = memoryOf(sawt.proc.pid).rss;
    const bound = idle + 2 * CONFIG.budgetMb * MiB + CONFIG.concurrency * RECOGNISER_WORKING_SET + SLACK;

    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
          method: "POST",
          headers: { "X-API-Key": key },
          body: uploadForm({ name: `hour-${i}.flac`, data: flac }, { response_format: "verbose_json" }),
        }),
      ),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    for (const reply of replies) {
      if (reply.status === 200) expect(reply.json).toMatchObject({ text: "", duration: 3600, segments: [] });
      else
        expect(reply.json).toEqual({ error: "http_error", detail: "Service busy, try again later", code: "HTTP_503" });
    }
    expect(statuses).toContain(200);

    const { peak } = memoryOf(sawt.proc.pid);
    console.log(`memory: idle ${mib(idle)}, peak ${mib(peak)}, bound ${mib(bound)}, statuses ${statuses.join(" ")}`);
    await recordFigures("memory", {
      uploads: 10,
      flacBytes: flac.byteLength,
      config: CONFIG,
      idle: mib(idle),
      peak: mib(peak),
      bound: mib(bound),
      statuses: Object.fromEntries([200, 503].map((s) => [s, statuses.filter((x) => x === s).length])),
    });
    expect(peak).toBeLessThan(bound);

    const health = await call(`${sawt.baseUrl}/v1/asr/health`);
    expect(health.status).toBe(200);
    expect(health.json.status).toBe("healthy");
    expect(leftoverUploads(sawt.dataDir)).toEqual([]);
  }, 120_000);
});
