/**
 * The runtime inside the compiled binary: sessions run in the embedded worker entry, and CUDA
 * provider libraries shipped in the bundle's lib/ are linked beside the private libonnxruntime,
 * where onnxruntime looks for them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { linkSync, lstatSync, mkdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, ROOT, tempDir } from "../support/sawt.ts";

// A bundle laid out as installed: the executable with lib/ beside it (hard link: same inode,
// so the binary's own path, and with it lib/, is the bundle's).
const bundle = join(ROOT, "dist", "runtime-test-bundle");
const runtimeDir = tempDir("sawt-rtdir-");

beforeAll(() => {
  const build = Bun.spawnSync([process.execPath, "installer/build.ts"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
  rmSync(bundle, { recursive: true, force: true });
  mkdirSync(join(bundle, "lib"), { recursive: true });
  linkSync(BINARY, join(bundle, "sawt"));
  for (const name of ["libonnxruntime_providers_shared.so", "libonnxruntime_providers_cuda.so", "libcudnn.so.9"])
    writeFileSync(join(bundle, "lib", name), "placeholder");
}, 180_000);
afterAll(() => {
  rmSync(bundle, { recursive: true, force: true });
  runtimeDir.remove();
});

describe("compiled runtime", () => {
  test("does run a session in the embedded worker and link the bundle's provider libraries beside libonnxruntime", async () => {
    const data = tempDir();
    const proc = Bun.spawn([join(bundle, "sawt"), "doctor", "--json"], {
      cwd: "/",
      env: { ...process.env, SAWT_DATA_DIR: data.path, SAWT_RUNTIME_DIR: runtimeDir.path, SAWT_LOG_LEVEL: "warn" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const report = JSON.parse(await new Response(proc.stdout).text()) as {
      checks: Array<{ name: string; status: string; detail: string; data: Record<string, unknown> }>;
    };
    await proc.exited;
    data.remove();
    const onnx = report.checks.find((c) => c.name === "onnxruntime")!;
    expect(onnx).toMatchObject({ status: "ok", data: { session_ok: true } });
    expect(onnx.detail).toContain("in a worker thread");

    const [privateDir] = new Bun.Glob("ort-*").scanSync({ cwd: runtimeDir.path, onlyFiles: false });
    expect(privateDir).toBeDefined();
    const dir = join(runtimeDir.path, privateDir!);
    expect(lstatSync(join(dir, "libonnxruntime.so.1")).isFile()).toBe(true);
    for (const name of ["libonnxruntime_providers_shared.so", "libonnxruntime_providers_cuda.so", "libcudnn.so.9"]) {
      expect(readlinkSync(join(dir, name))).toBe(join(bundle, "lib", name));
    }
  }, 60_000);
});
