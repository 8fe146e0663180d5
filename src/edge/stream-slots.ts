/**
 * The ceiling on live transcription sessions per engine (`streaming.max_streams`), shared by every
 * live door (realtime WebSocket, jambonz, gRPC StreamingRecognize): a session takes a slot before it starts and gives it
 * back, exactly once, however it ends. A refused session gets the REST 503 busy body. The open
 * slots are also the `sawt_asr_open_streams` gauge.
 */
import type { AppContext } from "../core/context.ts";
import { AppError, Detail } from "../errors/taxonomy.ts";
import type { StreamDoor } from "../serving/metrics.ts";
import { ENGINE_RETRY_AFTER_S } from "./readiness.ts";

/** A held slot; `release` is idempotent. */
export interface StreamSlot {
  release(): void;
}

const open = new WeakMap<AppContext, number>();

/** Takes a live-session slot on the ASR engine, or throws the 503 busy AppError. */
export function acquireStreamSlot(ctx: AppContext, door: StreamDoor): StreamSlot {
  const count = open.get(ctx) ?? 0;
  if (count >= ctx.config.streaming.max_streams) {
    throw new AppError("unavailable", Detail.asrBusy, { retryAfter: ENGINE_RETRY_AFTER_S });
  }
  open.set(ctx, count + 1);
  ctx.metrics.countStream(door, 1);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      open.set(ctx, Math.max(0, (open.get(ctx) ?? 1) - 1));
      ctx.metrics.countStream(door, -1);
    },
  };
}
