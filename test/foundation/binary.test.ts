import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { BINARY, ROOT, runCli, startSawt, tempDir, waitForStatus } from "../support/sawt.ts";

// Builds dist/sawt once, then runs it from / with no checkout or node_modules beside it.
beforeAll(() => {
  const build = Bun.spawnSync([process.execPath, "installer/build.ts"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
}, 180_000);

describe("compiled binary", () => {
  test("does print its version from /", async () => {
    expect(existsSync(BINARY)).toBe(true);
    const result = await runCli(["--version"], { binary: true, cwd: "/" });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^sawt \d+\.\d+\.\d+/);
  });

  test("does serve from / and answer health, then exit 0 on SIGTERM", async () => {
    const data = tempDir("sawt-bin-");
    const server = await startSawt({ binary: true, cwd: "/", dataDir: data.path });
    try {
      const health = await waitForStatus(`${server.baseUrl}/v1/tts/health`);
      expect(((await health.json()) as { status: string }).status).toBe("healthy");
      expect((await runCli(["health", "--url", server.baseUrl], { binary: true, cwd: "/" })).code).toBe(0);
    } finally {
      expect(await server.stop()).toBe(0);
      data.remove();
    }
    expect(
      (await runCli(["health", "--url", server.baseUrl, "--timeout", "1000"], { binary: true, cwd: "/" })).code,
    ).not.toBe(0);
  });

  test("does open a real onnxruntime session in doctor", async () => {
    const data = tempDir("sawt-bin-");
    const result = await runCli(["doctor", "--json"], { binary: true, cwd: "/", env: { SAWT_DATA_DIR: data.path } });
    data.remove();
    const ort = JSON.parse(result.stdout).checks.find((c: { name: string }) => c.name === "onnxruntime");
    expect(ort.status).toBe("ok");
    expect(ort.data.session_ok).toBe(true);
    expect(ort.data.providers).toContain("cpu");
  });

  test("does speak a WAV with espeak-ng from / when no pack is installed", async () => {
    // espeak runs in its own worker, a further entry point embedded in the binary: this proves it loads.
    const data = tempDir("sawt-bin-");
    const models = join(data.path, "models");
    mkdirSync(models);
    const out = join(data.path, "x.wav");
    try {
      const result = await runCli(["tts", "--text", "مرحبا", "--format", "wav", "--out", out], {
        binary: true,
        cwd: "/",
        env: { SAWT_DATA_DIR: data.path, SAWT_MODELS_DIR: models },
      });
      expect(result.stderr).toContain("engine=espeak-ng");
      expect(result.code).toBe(0);
      const wav = new Uint8Array(await Bun.file(out).arrayBuffer());
      expect(new TextDecoder().decode(wav.subarray(0, 4))).toBe("RIFF");
      expect(wav.byteLength).toBeGreaterThan(44 + 8000); // header plus real audio
    } finally {
      data.remove();
    }
  });

  test("does diacritise with the embedded libtashkeel model from / when no pack is installed", async () => {
    const data = tempDir("sawt-bin-");
    const models = join(data.path, "models");
    mkdirSync(models);
    try {
      const text = "إن روعة اللغة العربية لا تتبدى إلا لعشاقها";
      const result = await runCli(["tts", "--analyze", "--json", "--text", text], {
        binary: true,
        cwd: "/",
        env: { SAWT_DATA_DIR: data.path, SAWT_MODELS_DIR: models },
      });
      expect(result.code).toBe(0);
      const analysis = JSON.parse(result.stdout);
      expect(analysis.tashkeel).toBe("built-in");
      expect(analysis.sentences[0].diacritized).toBe("إِنَّ رَوْعَةَ اللُّغَةِ الْعَرَبِيَّةِ لَا تَتَبَدَّى إِلَّا لِعُشَّاقِهَا");
    } finally {
      data.remove();
    }
  });
});
