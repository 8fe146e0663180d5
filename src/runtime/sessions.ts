/**
 * The one factory for ONNX sessions. Every engine creates its sessions here, so the execution
 * provider, thread counts and warm-up are the same everywhere. A CUDA session that fails to build
 * falls back to CPU with a logged reason rather than taking the engine down.
 */
import type { InferenceSession } from "onnxruntime-node";
import { log } from "../log/logger.ts";
import type { DeviceChoice } from "./devices.ts";
import { loadOrt } from "./ort.ts";

/** A created session and where it actually runs. */
export interface CreatedSession {
  readonly session: InferenceSession;
  readonly provider: "cpu" | "cuda";
}

let device: DeviceChoice = { provider: "cpu", reason: "not configured", gpus: [], intraOpThreads: 1 };

/** Sets the device decision used by later sessions (called once at start-up). */
export function useDevice(choice: DeviceChoice): void {
  device = choice;
}

/** The device decision in force. */
export function currentDevice(): DeviceChoice {
  return device;
}

function options(provider: "cpu" | "cuda"): InferenceSession.SessionOptions {
  return {
    executionProviders: provider === "cuda" ? ["cuda", "cpu"] : ["cpu"],
    intraOpNumThreads: device.intraOpThreads,
    interOpNumThreads: 1,
    graphOptimizationLevel: "all",
  };
}

/** Creates a session from a model file or bytes on the chosen provider (CPU fallback on failure). */
export async function createSession(model: string | Uint8Array): Promise<CreatedSession> {
  const ort = await loadOrt();
  const create = (provider: "cpu" | "cuda") =>
    typeof model === "string" ? ort.InferenceSession.create(model, options(provider)) : ort.InferenceSession.create(model, options(provider));
  if (device.provider === "cuda") {
    try {
      return { session: await create("cuda"), provider: "cuda" };
    } catch (error) {
      log.warn("cuda session failed, using cpu", { error: (error as Error).message.split("\n")[0] });
    }
  }
  return { session: await create("cpu"), provider: "cpu" };
}
