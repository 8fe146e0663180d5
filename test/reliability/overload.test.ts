/**
 * Overload and drain of the real server: a burst far beyond concurrency plus queue is answered
 * only with 200, 503 (queue full, with Retry-After) or 504 — every reply with a request id — and
 * the service is healthy afterwards; SIGTERM during a burst lets admitted work finish, refuses new
 * work and exits 0 with no upload or spool file left behind.
 */
import { afterAll, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Detail } from "../../src/errors/taxonomy.ts";
import { until } from "../support/sawt.ts";
import { recordFigures, startTarget, type Target } from "./server.ts";

const LONG_TEXT = "مرحبا بكم في خدمة العملاء. ".repeat(12);
const targets: Target[] = [];
afterAll(async () => {
  for (const t of targets) await t.close().catch(() => undefined);
});

const tally = (statuses: number[]) =>
  Object.fromEntries([...new Set(statuses)].sort().map((s) => [s, statuses.filter((x) => x === s).length]));

async function speak(
  target: Target,
  input = LONG_TEXT,
): Promise<{ status: number; id: string | null; retryAfter: string | null; detail?: string }> {
  try {
    const res = await fetch(`${target.sawt.baseUrl}/v1/tts/audio/speech`, {
      method: "POST",
      headers: { "x-api-key": target.key, "content-type": "application/json" },
      body: JSON.stringify({ input, response_format: "pcm" }),
    });
    const body = res.status === 200 ? (await res.arrayBuffer(), undefined) : ((await res.json()) as { detail: string });
    return {
      status: res.status,
      id: res.headers.get("x-request-id"),
      retryAfter: res.headers.get("retry-after"),
      detail: body?.detail,
    };
  } catch {
    return { status: 0, id: null, retryAfter: null }; // connection refused: the server is gone
  }
}

test("does answer a burst of 60 speech requests with 200, 503 or 504 only and stay healthy", async () => {
  const target = await startTarget({
    SAWT_TTS_CONCURRENCY: "1",
    SAWT_TTS_MAX_QUEUE: "4",
    SAWT_TTS_QUEUE_TIMEOUT_MS: "3000",
  });
  targets.push(target);
  const replies = await Promise.all(Array.from({ length: 60 }, () => speak(target)));
  const statuses = replies.map((r) => r.status);
  expect(statuses.every((s) => s === 200 || s === 503 || s === 504)).toBe(true);
  expect(replies.every((r) => r.id !== null)).toBe(true);
  for (const r of replies.filter((x) => x.status === 503)) {
    expect(r.detail).toBe(Detail.ttsBusy);
    expect(Number(r.retryAfter)).toBeGreaterThan(0);
  }
  expect(statuses).toContain(200);
  expect(statuses).toContain(503);
  expect((await fetch(`${target.sawt.baseUrl}/v1/tts/health`)).status).toBe(200);
  expect((await speak(target, "مرحبا")).status).toBe(200);
  await recordFigures("overload", { burst: 60, concurrency: 1, queue: 4, statuses: tally(statuses) });
}, 120_000);

test("does finish admitted work on SIGTERM during a burst, refuse the rest and exit 0", async () => {
  const target = await startTarget({
    SAWT_TTS_CONCURRENCY: "1",
    SAWT_TTS_MAX_QUEUE: "8",
    SAWT_DRAIN_TIMEOUT_MS: "30000",
  });
  targets.push(target);
  const burst = Array.from({ length: 12 }, () => speak(target));
  await Bun.sleep(150);
  const began = performance.now();
  const exited = target.sawt.stop("SIGTERM");
  // Requests sent once the server reports draining must be refused.
  await until(
    async () => (await fetch(`${target.sawt.baseUrl}/health`).catch(() => undefined))?.status !== 200,
    "health to leave 200",
    { everyMs: 5 },
  );
  const late = await Promise.all(Array.from({ length: 5 }, () => speak(target, "مرحبا")));
  const replies = await Promise.all(burst);
  const code = await exited;
  const drainSeconds = (performance.now() - began) / 1000;
  const statuses = replies.map((r) => r.status);
  console.log(`drain: ${JSON.stringify(tally(statuses))} late ${JSON.stringify(tally(late.map((r) => r.status)))}`);
  expect(code).toBe(0);
  // Admitted work finished (200); requests the drain refused got 503; none were cut off mid-way.
  expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
  expect(statuses).toContain(200);
  // One synthesis at a time and a queue of 8: of 12 sent at once, the rest were refused.
  expect(statuses).toContain(503);
  expect(late.every((r) => r.status === 503 || r.status === 0)).toBe(true);
  // The ports stay open while admitted work drains, so the drain itself answered the late ones.
  expect(late.some((r) => r.status === 503)).toBe(true);
  expect(readdirSync(join(target.sawt.dataDir, "tmp")).length).toBe(0);
  await recordFigures("drain", {
    burst: 12,
    statuses: tally(statuses),
    late: tally(late.map((r) => r.status)),
    exitCode: code,
    drainSeconds,
  });
}, 120_000);
