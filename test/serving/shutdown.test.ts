/**
 * Graceful shutdown of a real `sawt serve` process (spawned by startSawt) with the slow test
 * engine preloaded: SIGTERM while a request runs and another waits.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { scrapeMetrics } from "../support/http-helpers.ts";
import { ROOT, startSawt, tempDir, until, waitForStatus, type SawtProcess } from "../support/sawt.ts";
import { slowModelFile, TEST_THREADS, type SlowModelFile } from "../support/slow-fixture.ts";

const PRELOAD = join(ROOT, "test", "support", "slow-engine-preload.ts");
let model: SlowModelFile;
const data = tempDir("sawt-shutdown-");

beforeAll(async () => {
  model = await slowModelFile();
}, 60_000);
afterAll(() => data.remove());

function serve(drainMs: number, dir: string): Promise<SawtProcess> {
  return startSawt({
    preload: PRELOAD,
    dataDir: dir,
    env: {
      SAWT_TEST_SLOW_MODEL: model.path,
      SAWT_RUNTIME_INTRA_OP_THREADS: String(TEST_THREADS),
      SAWT_TTS_CONCURRENCY: "1",
      SAWT_TTS_MAX_QUEUE: "4",
      SAWT_TTS_QUEUE_TIMEOUT_MS: "60000",
      SAWT_DRAIN_TIMEOUT_MS: String(drainMs),
      SAWT_RUNTIME_METRICS_OPEN: "true",
    },
  });
}

async function gauge(server: SawtProcess, sample: string): Promise<number | undefined> {
  return (await scrapeMetrics(server.baseUrl)).get(sample);
}

async function untilGauge(server: SawtProcess, sample: string, value: number): Promise<void> {
  await until(async () => (await gauge(server, sample)) === value, `${sample} to reach ${value}`, { everyMs: 10 });
}

const post = (server: SawtProcess, id: string) =>
  fetch(`${server.baseUrl}/test/slow`, { method: "POST", headers: { "x-request-id": id } });

describe("graceful shutdown", () => {
  test("does finish running and queued work on SIGTERM, refuse new work, report draining, then exit 0", async () => {
    const server = await serve(60_000, join(data.path, "drain"));
    let exited = false;
    try {
      await waitForStatus(`${server.baseUrl}/ready`);
      const running = post(server, "running");
      await untilGauge(server, 'sawt_running_jobs{engine="tts"}', 1);
      const queued = post(server, "queued");
      await untilGauge(server, 'sawt_queue_depth{engine="tts"}', 1);

      server.proc.kill("SIGTERM");
      const exit = server.proc.exited.then((code) => ((exited = true), code));

      // While the two requests finish, health says draining and new work is refused.
      const health = await waitForStatus(`${server.baseUrl}/health`, 503);
      expect(await health.json()).toEqual({ status: "draining" });
      const engineHealth = await fetch(`${server.baseUrl}/v1/tts/health`);
      expect(engineHealth.status).toBe(503);
      expect(await engineHealth.json()).toMatchObject({ status: "unavailable", state: "draining" });
      expect((await fetch(`${server.baseUrl}/ready`)).status).toBe(503);
      const refused = await post(server, "late");
      expect(refused.status).toBe(503);
      expect(refused.headers.get("x-request-id")).toBe("late");
      expect(refused.headers.get("retry-after")).not.toBeNull();
      expect(await refused.json()).toMatchObject({ error: "http_error", code: "HTTP_503" });
      expect(exited).toBe(false);

      const [first, second] = await Promise.all([running, queued]);
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(await first.json()).toMatchObject({ ok: true });
      expect(await exit).toBe(0);

      // Once gone, the port refuses connections; the database was checkpointed and closed.
      expect(
        await fetch(`${server.baseUrl}/health`).then(
          () => "answered",
          () => "refused",
        ),
      ).toBe("refused");
      const wal = join(server.dataDir, "sawt.db-wal");
      expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
      const messages = server.logs.map((line) => JSON.parse(line).msg as string);
      expect(messages).toContain("draining");
      expect(messages).toContain("stopped");
      expect(messages).not.toContain("drain deadline passed, closing remaining connections");
    } finally {
      if (!exited) await server.stop("SIGKILL");
    }
  }, 90_000);

  test("does cut work still running at the drain deadline and still exit 0", async () => {
    const server = await serve(200, join(data.path, "deadline"));
    let exited = false;
    try {
      await waitForStatus(`${server.baseUrl}/ready`);
      // Three runs of work against a 200 ms deadline: the queue cannot finish in time.
      const requests = ["a", "b", "c"].map((id) =>
        post(server, id).then(
          (r) => r.status,
          () => "cut",
        ),
      );
      await untilGauge(server, 'sawt_queue_depth{engine="tts"}', 2);
      server.proc.kill("SIGTERM");
      expect(await server.proc.exited.then((code) => ((exited = true), code))).toBe(0);
      const outcomes = await Promise.all(requests);
      expect(outcomes).toContain("cut");
      expect(server.logs.map((line) => JSON.parse(line).msg as string)).toContain(
        "drain deadline passed, closing remaining connections",
      );
    } finally {
      if (!exited) await server.stop("SIGKILL");
    }
  }, 90_000);
});
