/**
 * `sawt doctor` on this machine reports the device decision with its reason, and opens a real
 * session through the worker path. The expectation follows what systeminformation sees here, so
 * the test is right both on CI (no GPU) and on a GPU box.
 */
import { describe, expect, test } from "bun:test";
import { detectNvidiaGpus } from "../../src/onnx/devices.ts";
import { runCli, tempDir } from "../support/sawt.ts";

async function doctor(env: Record<string, string> = {}) {
  const data = tempDir();
  try {
    const result = await runCli(["doctor", "--json"], { env: { SAWT_DATA_DIR: data.path, ...env } });
    const report = JSON.parse(result.stdout) as {
      checks: Array<{ name: string; status: string; detail: string; fix?: string; data: Record<string, unknown> }>;
    };
    const check = (name: string) => report.checks.find((c) => c.name === name)!;
    return { code: result.code, device: check("device"), onnx: check("onnxruntime") };
  } finally {
    data.remove();
  }
}

describe("sawt doctor device report", () => {
  test("does choose CPU and say why when the machine has no NVIDIA GPU", async () => {
    const gpus = await detectNvidiaGpus();
    const { device, onnx } = await doctor();
    if (gpus.length === 0) {
      expect(device.status).toBe("ok");
      expect(device.detail).toMatch(/^CPU chosen: no NVIDIA GPU detected; \d+ thread\(s\) per session$/);
      expect(device.data).toMatchObject({ provider: "cpu", reason: "no NVIDIA GPU detected", gpus: [] });
    } else {
      // A GPU box: the report names the GPU (model, memory, driver) whichever provider won.
      expect(device.detail).toContain(gpus[0]!.model);
      expect((device.data.gpus as unknown[]).length).toBe(gpus.length);
    }
    expect(onnx).toMatchObject({ status: "ok", data: { session_ok: true, session_provider: device.data.provider } });
  }, 60_000);

  test("does honour runtime.provider = cpu and fail when CUDA is forced without a usable GPU", async () => {
    const forcedCpu = await doctor({ SAWT_RUNTIME_PROVIDER: "cpu" });
    expect(forcedCpu.device).toMatchObject({
      status: "ok",
      data: { provider: "cpu", reason: "runtime.provider = cpu" },
    });

    const forcedCuda = await doctor({ SAWT_RUNTIME_PROVIDER: "cuda" });
    if (forcedCuda.device.data.provider === "cuda") return; // a GPU box with its provider libraries
    expect(forcedCuda.code).toBe(1);
    expect(forcedCuda.device.status).toBe("fail");
    expect(forcedCuda.device.fix).toBeString();
  }, 60_000);
});
