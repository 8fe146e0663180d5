/**
 * Engine start-up: loads model packs and warms sessions for each engine, moving its state to
 * ready (or failed with a reason). Engines start after the ports are bound, so health answers
 * 503 "… engine not initialized" meanwhile.
 */
import type { AppContext } from "./context.ts";
import { chooseDevice } from "../runtime/devices.ts";
import { useDevice } from "../runtime/sessions.ts";
import { startAsrEngine, stopAsrEngine } from "../asr/engine.ts";
import { startTtsEngine, stopTtsEngine } from "../tts/start.ts";

/** Starts every engine; resolves when each is ready or failed. */
export async function startEngines(ctx: AppContext): Promise<void> {
  const device = await chooseDevice(ctx.config.runtime.provider, ctx.config.runtime.intra_op_threads);
  useDevice(device);
  ctx.log.info("device", { provider: device.provider, reason: device.reason, gpus: device.gpus.length, threads: device.intraOpThreads });
  ctx.engines.tts.setDetails({ provider: device.provider });
  await Promise.all([startTtsEngine(ctx), startAsrEngine(ctx)]);
}

/** Releases engine resources at shutdown. */
export async function stopEngines(ctx: AppContext): Promise<void> {
  await Promise.all([stopTtsEngine(ctx), stopAsrEngine(ctx)]);
}
