/**
 * Where models run: the CUDA execution provider when an NVIDIA GPU is present and the provider
 * libraries can be found, CPU otherwise (config `runtime.provider` may force either). The choice
 * and the reason for it are reported by `sawt doctor` and the health details.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";

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
  /** Where the CUDA provider libraries were found (CUDA only). */
  readonly providerDir?: string;
}

/** Files the CUDA execution provider needs beside libonnxruntime. */
export const CUDA_PROVIDER_LIBRARIES = [
  "libonnxruntime_providers_shared.so",
  "libonnxruntime_providers_cuda.so",
] as const;

/** PCI vendor id of NVIDIA. */
const NVIDIA_PCI_VENDOR = "0x10de";

/**
 * Whether any PCI device on the machine is NVIDIA's, read from sysfs (what lspci reads too);
 * undefined when sysfs cannot tell (not Linux, no /sys in a container).
 */
export function nvidiaOnPciBus(devicesDir = "/sys/bus/pci/devices"): boolean | undefined {
  try {
    return readdirSync(devicesDir).some((device) => {
      try {
        const vendor = readFileSync(join(devicesDir, device, "vendor"), "utf8");
        return vendor.trim().toLowerCase() === NVIDIA_PCI_VENDOR;
      } catch {
        return false;
      }
    });
  } catch {
    return undefined;
  }
}

/**
 * NVIDIA GPUs per systeminformation (empty when none or when it cannot tell). Its graphics probe
 * runs lspci, clinfo, xdpyinfo and xrandr one after another (tens of ms, on every start), so a
 * machine whose PCI bus holds no NVIDIA device at all is answered from sysfs without it.
 */
export async function detectNvidiaGpus(): Promise<GpuInfo[]> {
  if (nvidiaOnPciBus() === false) return [];
  try {
    const { default: si } = await import("systeminformation");
    const graphics = await si.graphics();
    return graphics.controllers
      .filter((c) => /nvidia/i.test(`${c.vendor} ${c.model}`))
      .map((c) => ({
        vendor: c.vendor,
        model: c.model,
        memoryMb: c.vram ?? c.memoryTotal ?? null,
        driverVersion: c.driverVersion ?? null,
      }));
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

/** Hardware probes {@link chooseDevice} uses; tests of the decision pass their own. */
export interface DeviceProbes {
  readonly gpus: () => Promise<GpuInfo[]>;
  readonly providerDir: () => string | undefined;
  readonly cores: () => number;
}

const REAL_PROBES: DeviceProbes = {
  gpus: detectNvidiaGpus,
  providerDir: findCudaProviderDir,
  cores: availableParallelism,
};

/**
 * Threads per session when not configured: every core up to 8. Beyond 8, ORT's intra-op scaling
 * flattens for the small sequential graphs of speech models while concurrent requests still need
 * cores; sessions run in their own worker threads, so two busy sessions share the machine.
 */
export function defaultIntraOpThreads(cores: number): number {
  return Math.max(1, Math.min(8, cores));
}

/** Decides the execution provider and thread count for this machine (config `runtime.*`). */
export async function chooseDevice(
  preference: "auto" | "cpu" | "cuda",
  intraOpThreads: number,
  probes: DeviceProbes = REAL_PROBES,
): Promise<DeviceChoice> {
  const threads = intraOpThreads > 0 ? intraOpThreads : defaultIntraOpThreads(probes.cores());
  // GPUs are reported even when CPU is forced: doctor and health show what the machine has.
  const gpus = await probes.gpus();
  const cpu = (reason: string): DeviceChoice => ({ provider: "cpu", reason, gpus, intraOpThreads: threads });
  if (preference === "cpu") return cpu("runtime.provider = cpu");
  if (gpus.length === 0)
    return cpu(preference === "cuda" ? "runtime.provider = cuda but no NVIDIA GPU detected" : "no NVIDIA GPU detected");
  const providerDir = probes.providerDir();
  if (!providerDir) {
    return cpu(
      `NVIDIA GPU present but CUDA provider libraries (${CUDA_PROVIDER_LIBRARIES.join(", ")}) not found in ${cudaProviderSearchDirs().join(" or ")}`,
    );
  }
  return {
    provider: "cuda",
    reason: `NVIDIA GPU present, CUDA provider libraries in ${providerDir}`,
    gpus,
    intraOpThreads: threads,
    providerDir,
  };
}

/** The device decision as health/doctor details (snake_case, JSON-ready). */
export function deviceDetails(choice: DeviceChoice): Record<string, unknown> {
  return {
    provider: choice.provider,
    provider_reason: choice.reason,
    intra_op_threads: choice.intraOpThreads,
    gpus: choice.gpus.map((g) => ({ model: g.model, memory_mb: g.memoryMb, driver: g.driverVersion })),
  };
}
