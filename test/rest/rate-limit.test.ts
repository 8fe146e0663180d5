/**
 * Per-key rate limits over real HTTP (D11). Real syntheses (the built-in espeak-ng engine, raw
 * PCM) spend the quota of the first key; since every authenticated request counts, whatever its
 * outcome, the cheapest one — an empty input, answered 400 without touching an engine — races in
 * the concurrency test.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Detail } from "../../src/errors/taxonomy.ts";
import { startSawt, tempDir, waitForStatus, type SawtProcess } from "../support/sawt.ts";
import { expectAuth, postJson, type Reply } from "./support.ts";

const data = tempDir("sawt-rate-");
let sawt: SawtProcess;

beforeAll(async () => {
  sawt = await startSawt({ dataDir: data.path });
  await waitForStatus(`${sawt.baseUrl}/v1/tts/health`);
});
afterAll(async () => {
  await sawt.stop();
  data.remove();
});

const speak = (key: string, headers: Record<string, string> = { "X-API-Key": key }): Promise<Reply> =>
  postJson(sawt.baseUrl + "/v1/tts/audio/speech", { input: "مرحبا", response_format: "pcm" }, headers);

const spend = (key: string, headers: Record<string, string> = { "X-API-Key": key }): Promise<Reply> =>
  postJson(sawt.baseUrl + "/v1/tts/audio/speech", { input: "" }, headers);

describe("rate limit", () => {
  test("does admit rpm requests, then answer 429 with Retry-After, and hold the count across a restart", async () => {
    const { key } = await sawt.createKey({ name: "rpm3", rpm: 3 });
    const replies = [await speak(key), await speak(key, { Authorization: `Bearer ${key}` }), await speak(key)];
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(replies.map((r) => r.header("x-ratelimit-remaining"))).toEqual(["2", "1", "0"]);
    for (const reply of replies) {
      expect(reply.header("content-type")).toBe("audio/pcm");
      expect(reply.header("x-ratelimit-limit")).toBe("3");
      expect(Number(reply.header("x-ratelimit-reset"))).toBeGreaterThan(0);
    }

    const limited = await speak(key);
    expectAuth(limited, 429, Detail.rateLimited);
    const retryAfter = Number(limited.header("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.header("x-ratelimit-limit")).toBe("3");
    expect(limited.header("x-ratelimit-remaining")).toBe("0");
    expect(limited.header("x-ratelimit-reset")).toBe(String(retryAfter));

    // The other routes share the key's budget.
    const asr = await postJson(sawt.baseUrl + "/v1/asr/audio/transcriptions", {}, { "X-API-Key": key });
    expectAuth(asr, 429, Detail.rateLimited);

    await sawt.stop();
    sawt = await startSawt({ dataDir: data.path });
    const afterRestart = await spend(key);
    expectAuth(afterRestart, 429, Detail.rateLimited);
    expect(Number(afterRestart.header("retry-after"))).toBeGreaterThan(0);
  });

  test("does admit exactly the limit when 20 requests race on a 10-rpm key", async () => {
    const { key } = await sawt.createKey({ name: "rpm10", rpm: 10 });
    const replies = await Promise.all(Array.from({ length: 20 }, () => spend(key)));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 400)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    const remaining = replies.filter((r) => r.status === 400).map((r) => Number(r.header("x-ratelimit-remaining")));
    expect(remaining.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  test("does not count requests that fail authentication against anyone", async () => {
    const { key } = await sawt.createKey({ name: "rpm1", rpm: 1 });
    for (let i = 0; i < 3; i++) expect((await spend(key, { "X-API-Key": key + "x" })).status).toBe(401);
    expect((await spend(key)).status).toBe(400);
  });
});
