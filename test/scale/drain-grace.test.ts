/** `server.drain_grace_ms`: after SIGTERM, /ready says 503 at once while requests are still served. */
import { expect, test } from "bun:test";
import { startSawt, waitForStatus } from "../support/sawt.ts";

test("does keep serving speech while /ready answers 503 when SIGTERM arrives with a drain grace", async () => {
  const sawt = await startSawt({ env: { SAWT_DRAIN_GRACE_MS: "1500" } });
  try {
    const { key } = await sawt.createKey();
    await waitForStatus(`${sawt.baseUrl}/ready`, 200);
    const signalled = Date.now();
    sawt.proc.kill("SIGTERM");
    await waitForStatus(`${sawt.baseUrl}/ready`, 503, 1000);
    expect((await fetch(`${sawt.baseUrl}/health`)).status).toBe(503);
    const speech = await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ input: "مرحبا", response_format: "pcm" }),
    });
    expect(speech.status).toBe(200);
    expect((await speech.arrayBuffer()).byteLength).toBeGreaterThan(0);
    expect(Date.now() - signalled).toBeLessThan(1500);
    expect(await sawt.proc.exited).toBe(0); // (a second SIGTERM would skip the drain)
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(1500);
    expect(sawt.logs.some((l) => l.includes("not ready, serving until the balancer notices"))).toBe(true);
  } finally {
    await sawt.stop("SIGKILL");
  }
}, 30_000);
