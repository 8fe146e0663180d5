import { describe, expect, test } from "bun:test";
import { chooseDevice, defaultIntraOpThreads, deviceDetails, type DeviceProbes, type GpuInfo } from "./devices.ts";

const H100: GpuInfo = { vendor: "NVIDIA", model: "NVIDIA H100 80GB HBM3", memoryMb: 81559, driverVersion: "550.54.15" };
const probes = (gpus: GpuInfo[], providerDir?: string, cores = 16): DeviceProbes => ({
  gpus: async () => gpus,
  providerDir: () => providerDir,
  cores: () => cores,
});

describe("chooseDevice", () => {
  test("does choose CPU and say so when no NVIDIA GPU is present", async () => {
    const choice = await chooseDevice("auto", 0, probes([]));
    expect(choice).toMatchObject({ provider: "cpu", reason: "no NVIDIA GPU detected" });
  });

  test("does choose CUDA when a GPU and the provider libraries are present", async () => {
    const choice = await chooseDevice("auto", 0, probes([H100], "/opt/sawt/lib"));
    expect(choice).toMatchObject({ provider: "cuda", providerDir: "/opt/sawt/lib" });
    expect(choice.reason).toContain("/opt/sawt/lib");
  });

  test("does fall back to CPU naming the missing libraries when a GPU has no provider", async () => {
    const choice = await chooseDevice("auto", 0, probes([H100]));
    expect(choice.provider).toBe("cpu");
    expect(choice.reason).toMatch(
      /NVIDIA GPU present but CUDA provider libraries \(libonnxruntime_providers_shared\.so, libonnxruntime_providers_cuda\.so\) not found/,
    );
  });

  test("does honour runtime.provider = cpu and still report the GPU", async () => {
    const choice = await chooseDevice("cpu", 0, probes([H100], "/opt/sawt/lib"));
    expect(choice).toMatchObject({ provider: "cpu", reason: "runtime.provider = cpu" });
    expect(deviceDetails(choice).gpus).toEqual([{ model: H100.model, memory_mb: 81559, driver: "550.54.15" }]);
  });

  test("does explain a forced CUDA without a GPU", async () => {
    const choice = await chooseDevice("cuda", 0, probes([]));
    expect(choice).toMatchObject({ provider: "cpu", reason: "runtime.provider = cuda but no NVIDIA GPU detected" });
  });

  test("does size threads to the machine unless configured", async () => {
    expect((await chooseDevice("cpu", 0, probes([], undefined, 2))).intraOpThreads).toBe(2);
    expect((await chooseDevice("cpu", 0, probes([], undefined, 64))).intraOpThreads).toBe(8);
    expect((await chooseDevice("cpu", 3, probes([], undefined, 64))).intraOpThreads).toBe(3);
    expect(defaultIntraOpThreads(1)).toBe(1);
  });
});
