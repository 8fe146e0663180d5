/**
 * Where models run: the CUDA execution provider when an NVIDIA GPU is present and the provider
 * libraries can be found, CPU otherwise (config `runtime.provider` may force either). The choice
 * and the reason for it are reported by `sawt doctor` and the health details.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import si from "systeminformation";

/** A GPU seen on the machine. */
export interface GpuInfo {
  readonly vendor: string;
  readonly model: string;
  readonly memoryMb: number | null;
  readonly driverVersion: string | null;
}

/** The execution provider decision. */
export interface DeviceChoice {
  readonly provider: "cpu" | "cuda";
  /** Why this provider was chosen (always set). */
  readonly reason: string;
  readonly gpus: readonly GpuInfo[];
  /** Threads per session. */
  readonly intraOpThreads: number;
}

/** Files the CUDA execution provider needs beside libonnxruntime. */
export const CUDA_PROVIDER_LIBRARIES = ["libonnxruntime_providers_shared.so", "libonnxruntime_providers_cuda.so"] as const;

/** NVIDIA GPUs per systeminformation (empty when none or when it cannot tell). */
export async function detectNvidiaGpus(): Promise<GpuInfo[]> {
  try {
    const graphics = await si.graphics();
    return graphics.controllers
      .filter((c) => /nvidia/i.test(`${c.vendor} ${c.model}`))
      .map((c) => ({ vendor: c.vendor, model: c.model, memoryMb: c.vram ?? c.memoryTotal ?? null, driverVersion: c.driverVersion ?? null }));
  } catch {
    return [];
  }
}

/** Directories searched for CUDA provider libraries: the bundle's lib/, then next to the addon. */
export function cudaProviderSearchDirs(): string[] {
  const dirs = [join(dirname(process.execPath), "lib")];
  try {
    dirs.push(dirname(Bun.resolveSync("onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1", import.meta.dir)));
  } catch {
    // Not resolvable inside the compiled binary; the bundle's lib/ is the place there.
  }
  return dirs;
}

/** The first directory holding every CUDA provider library, if any. */
export function findCudaProviderDir(): string | undefined {
  return cudaProviderSearchDirs().find((dir) => CUDA_PROVIDER_LIBRARIES.every((lib) => existsSync(join(dir, lib))));
}

/** Decides the execution provider and thread count for this machine. */
export async function chooseDevice(preference: "auto" | "cpu" | "cuda", intraOpThreads: number): Promise<DeviceChoice> {
  const threads = intraOpThreads > 0 ? intraOpThreads : Math.max(1, Math.min(8, availableParallelism()));
  const gpus = preference === "cpu" ? [] : await detectNvidiaGpus();
  if (preference === "cpu") return { provider: "cpu", reason: "runtime.provider = cpu", gpus, intraOpThreads: threads };
  if (gpus.length === 0) return { provider: "cpu", reason: "no NVIDIA GPU detected", gpus, intraOpThreads: threads };
  const providerDir = findCudaProviderDir();
  if (!providerDir) {
    return { provider: "cpu", reason: `NVIDIA GPU present but CUDA provider libraries (${CUDA_PROVIDER_LIBRARIES.join(", ")}) not found in ${cudaProviderSearchDirs().join(" or ")}`, gpus, intraOpThreads: threads };
  }
  return { provider: "cuda", reason: `NVIDIA GPU present, CUDA provider libraries in ${providerDir}`, gpus, intraOpThreads: threads };
}
