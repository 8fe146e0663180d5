/**
 * Admission control through the real HTTP server with a real ONNX session (the calibrated slow
 * model) behind `ctx.admission.tts`: 200/503/504 outcomes, dropped clients, engine warm-up 503,
 * and the metrics that count them (checked with promtool).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { parseMetrics, promtoolCheck, startInProcess } from "../support/in-process.ts";
import { until } from "../support/sawt.ts";
import { slowEngine } from "../support/slow-engine.ts";
import { slowModelFile, type SlowModelFile } from "../support/slow-fixture.ts";

let model: SlowModelFile;
beforeAll(async () => {
  model = await slowModelFile();
}, 60_000);

const post = (baseUrl: string, id: string, signal?: AbortSignal) =>
  fetch(`${baseUrl}/test/slow`, { method: "POST", headers: { "x-request-id": id }, signal });

describe("admission over HTTP", () => {
  test("does answer 8 simultaneous requests with exactly 2×200, 5×503 and 1×504 when concurrency is 1 and the queue 2", async () => {
    // One run takes T. Prediction: 1 runs at once, 2 queue, 5 are refused (503). The first queued
    // one starts at ~T, before its timeout 1.5T (200); the second would start at ~2T, after it (504).
    // Run times may drift 25% down or 50% up from calibration and the prediction still holds.
    const timeoutMs = Math.round(1.5 * model.runMs);
    const engine = slowEngine(model.path);
    const sawt = await startInProcess(
      { SAWT_TTS_CONCURRENCY: "1", SAWT_TTS_MAX_QUEUE: "2", SAWT_TTS_QUEUE_TIMEOUT_MS: String(timeoutMs) },
      { plugins: [engine.plugin], loaders: [engine.loader] },
    );
    try {
      await sawt.server.enginesSettled;
      expect(sawt.server.ctx.engines.tts.state).toBe("ready");
      const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => post(sawt.baseUrl, `burst-${i}`)));
      const bodies = await Promise.all(responses.map((r) => r.json() as Promise<Record<string, unknown>>));
      const byStatus = (status: number) =>
        responses.map((r, i) => ({ r, body: bodies[i]!, id: `burst-${i}` })).filter((x) => x.r.status === status);

      expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 503, 503, 503, 503, 503, 504]);
      responses.forEach((r, i) => expect(r.headers.get("x-request-id")).toBe(`burst-${i}`));
      for (const { body } of byStatus(200)) expect(body.ok).toBe(true);
      for (const { r, body } of byStatus(503)) {
        expect(body).toEqual({ error: "http_error", detail: "Service busy, please try again later", code: "HTTP_503" });
        expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      }
      for (const { body } of byStatus(504))
        expect(body).toEqual({ error: "http_error", detail: "Request timeout waiting for GPU", code: "HTTP_504" });
      expect(engine.runs()).toBe(2); // the request that timed out in the queue never ran

      // The metrics count exactly what happened, and promtool accepts the exposition.
      await until(
        () => sawt.server.ctx.metrics.requestCount("POST", "/test/slow", 200) === 2,
        "the answered requests to be counted",
      );
      const admin = sawt.server.ctx.keys.create({ name: "ops", rpm: 60, admin: true });
      const user = sawt.server.ctx.keys.create({ name: "app", rpm: 60 });
      expect((await fetch(`${sawt.baseUrl}/metrics`)).status).toBe(401);
      expect((await fetch(`${sawt.baseUrl}/metrics`, { headers: { "x-api-key": user.key } })).status).toBe(403);
      const scrape = await fetch(`${sawt.baseUrl}/metrics`, { headers: { authorization: `Bearer ${admin.key}` } });
      expect(scrape.status).toBe(200);
      expect(scrape.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
      const text = await scrape.text();
      expect(await promtoolCheck(text)).toEqual({ code: 0, output: "" });

      const m = parseMetrics(text);
      expect(m.get('sawt_http_requests_total{method="POST",route="/test/slow",status="200"}')).toBe(2);
      expect(m.get('sawt_http_requests_total{method="POST",route="/test/slow",status="503"}')).toBe(5);
      expect(m.get('sawt_http_requests_total{method="POST",route="/test/slow",status="504"}')).toBe(1);
      expect(m.get('sawt_http_requests_total{method="GET",route="/metrics",status="401"}')).toBe(1);
      expect(m.get('sawt_http_requests_total{method="GET",route="/metrics",status="403"}')).toBe(1);
      expect(m.get('sawt_http_request_duration_seconds_count{method="POST",route="/test/slow"}')).toBe(8);
      expect(m.get('sawt_admission_rejected_total{engine="tts",reason="queue_full"}')).toBe(5);
      expect(m.get('sawt_admission_rejected_total{engine="tts",reason="timeout"}')).toBe(1);
      expect(m.get('sawt_admitted_total{engine="tts"}')).toBe(2);
      expect(m.get('sawt_queue_wait_seconds_count{engine="tts"}')).toBe(2);
      expect(m.get('sawt_queue_dropped_total{engine="tts"}')).toBe(0);
      expect(m.get('sawt_queue_depth{engine="tts"}')).toBe(0);
      expect(m.get('sawt_inference_seconds_count{engine="tts"}')).toBe(2);
      expect(m.get('sawt_inference_real_time_factor_count{engine="tts"}')).toBe(2);
      expect(m.get('sawt_inference_audio_seconds_total{engine="tts"}')).toBe(2);
      expect(m.get('sawt_engine_state{engine="tts",state="ready"}')).toBe(1);
      expect(m.get('sawt_engine_state{engine="tts",state="initializing"}')).toBe(0);
      expect(m.get("process_resident_memory_bytes")).toBeGreaterThan(0);

      // The scrape itself is counted once answered (Bun runs the hook after the response is sent).
      await until(
        () => sawt.server.ctx.metrics.requestCount("GET", "/metrics", 200) === 1,
        "the first scrape to be counted",
      );
      const again = parseMetrics(
        await (await fetch(`${sawt.baseUrl}/metrics`, { headers: { "x-api-key": admin.key } })).text(),
      );
      expect(again.get('sawt_http_requests_total{method="GET",route="/metrics",status="200"}')).toBe(1);
    } finally {
      await sawt.close();
    }
  }, 60_000);

  test("does drop a queued request whose client disconnected, without running it", async () => {
    const engine = slowEngine(model.path);
    const sawt = await startInProcess(
      {
        SAWT_TTS_CONCURRENCY: "1",
        SAWT_TTS_MAX_QUEUE: "4",
        SAWT_TTS_QUEUE_TIMEOUT_MS: "60000",
        SAWT_RUNTIME_METRICS_OPEN: "true",
      },
      { plugins: [engine.plugin], loaders: [engine.loader] },
    );
    const admission = sawt.server.ctx.admission.tts;
    try {
      await sawt.server.enginesSettled;
      const running = post(sawt.baseUrl, "running");
      await until(() => admission.stats.running === 1, "the first request to run");
      const queued = post(sawt.baseUrl, "queued");
      await until(() => admission.stats.queued === 1, "the second request to queue");
      const controller = new AbortController();
      const leaving = post(sawt.baseUrl, "leaving", controller.signal).catch((e: unknown) => e);
      await until(() => admission.stats.queued === 2, "the third request to queue");
      controller.abort();
      expect(await leaving).toBeInstanceOf(Error);
      // Two runs of work are ahead of it, so the server notices the disconnect while it still waits.
      await until(() => admission.stats.abandoned === 1, "the server to drop the disconnected request");
      expect(admission.stats.queued).toBe(1);

      expect((await running).status).toBe(200);
      expect((await queued).status).toBe(200);
      await until(() => admission.stats.running === 0 && admission.stats.queued === 0, "the queue to empty");
      expect(engine.runs()).toBe(2);
      expect(admission.stats).toMatchObject({ admitted: 2, completed: 2, abandoned: 1 });

      const m = parseMetrics(await (await fetch(`${sawt.baseUrl}/metrics`)).text());
      expect(m.get('sawt_queue_dropped_total{engine="tts"}')).toBe(1);
      expect(m.get('sawt_inference_seconds_count{engine="tts"}')).toBe(2);
      expect(m.get('sawt_http_requests_total{method="POST",route="/test/slow",status="499"}')).toBe(1);
    } finally {
      await sawt.close();
    }
  }, 60_000);

  test("does answer 503 'TTS engine not initialized' until the engine is loaded, then serve", async () => {
    let open!: () => void;
    const engine = slowEngine(model.path, { gate: new Promise<void>((resolve) => (open = resolve)) });
    const sawt = await startInProcess({}, { plugins: [engine.plugin], loaders: [engine.loader] });
    try {
      const early = await post(sawt.baseUrl, "early");
      expect(early.status).toBe(503);
      expect(early.headers.get("x-request-id")).toBe("early");
      expect(await early.json()).toEqual({
        error: "http_error",
        detail: "TTS engine not initialized",
        code: "HTTP_503",
      });
      const health = await fetch(`${sawt.baseUrl}/v1/tts/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({
        status: "unavailable",
        state: "initializing",
        detail: "TTS engine not initialized",
      });
      expect((await fetch(`${sawt.baseUrl}/ready`)).status).toBe(503);

      open();
      await sawt.server.enginesSettled;
      expect((await post(sawt.baseUrl, "later")).status).toBe(200);
      const ready = await fetch(`${sawt.baseUrl}/v1/tts/health`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({
        status: "healthy",
        provider: "cpu",
        provider_reason: expect.any(String),
        packs: ["slow"],
        broken_packs: [],
      });
    } finally {
      await sawt.close();
    }
  }, 60_000);
});
