import { afterAll, describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { runCli, startSawt, tempDir, waitForStatus } from "../support/sawt.ts";

const dir = tempDir("sawt-cli-");
afterAll(() => dir.remove());

describe("sawt CLI", () => {
  test("does print the package version", async () => {
    const result = await runCli(["--version"]);
    expect(result.stdout.trim()).toBe(`sawt ${pkg.version}`);
  });

  test("does show help for every command", async () => {
    for (const command of ["serve", "keys", "health", "doctor", "models"]) {
      const result = await runCli([command, "--help"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`sawt ${command}`);
    }
    const unknown = await runCli(["frobnicate"]);
    expect(unknown.code).toBe(2);
  });

  test("does report health 0 when up and 1 when down", async () => {
    const server = await startSawt({ dataDir: dir.path });
    try {
      await waitForStatus(`${server.baseUrl}/ready`);
      expect((await runCli(["health", "--url", server.baseUrl])).code).toBe(0);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect((await runCli(["health", "--url", server.baseUrl, "--timeout", "1000"])).code).toBe(1);
  });

  test("does answer TTS health and exit 0 on SIGINT", async () => {
    const server = await startSawt();
    const health = await waitForStatus(`${server.baseUrl}/v1/tts/health`);
    expect(((await health.json()) as { status: string }).status).toBe("healthy");
    expect(health.headers.get("x-request-id")).toBeTruthy();
    expect(await server.stop("SIGINT")).toBe(0);
  });

  test("does run doctor with a real onnxruntime session", async () => {
    const result = await runCli(["doctor", "--json"], { env: { SAWT_DATA_DIR: dir.path } });
    const report = JSON.parse(result.stdout);
    const ort = report.checks.find((c: { name: string }) => c.name === "onnxruntime");
    expect(ort.status).toBe("ok");
    expect(ort.data.session_ok).toBe(true);
    expect(ort.data.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(ort.data.providers).toContain("cpu");
    const device = report.checks.find((c: { name: string }) => c.name === "device");
    expect(device.detail).toMatch(/chosen: /);
  });
});
