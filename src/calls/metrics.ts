/**
 * The call doors' metrics, per door (`audiosocket`, `chan_websocket`, `external_media`),
 * registered once per metrics registry beside the others: calls open and ended (by reason), calls
 * and connections refused (by reason), connections open, how long a received frame waited until it
 * was transcribed and the frames handled late (over 200 ms: the call fell behind real time),
 * frames Sawt sent after their slot, the externalMedia RTP ports held, and end-of-call webhook
 * attempts. The live core's own per-door metrics (`sawt_asr_open_streams{door}`, …) count the
 * calls' transcription alike.
 */
import type { AppContext } from "../core/context.ts";
import type { ConnectionGuard } from "../edge/connection-guard.ts";
import { rtpPortsInUse } from "../media/ports.ts";
import type { Counter, Histogram } from "../serving/prometheus.ts";
import type { CallDoor } from "./events.ts";

/** The RTP door name externalMedia ports are held under (./external-media/), apart from the MRCP door's. */
export const EXTERNAL_MEDIA_PORTS = "external_media";

const DOORS: readonly CallDoor[] = ["audiosocket", "chan_websocket", "external_media"];
const FRAME_BUCKETS = [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5];

/** The call doors' instruments. */
export interface CallMetrics {
  readonly ended: Counter;
  readonly refused: Counter;
  readonly frameDelay: Histogram;
  readonly framesLate: Counter;
  readonly framesSentLate: Counter;
  readonly webhooks: Counter;
  /** Calls open now, by door. */
  readonly open: Map<CallDoor, number>;
  /** Each door's connection guard (./connections.ts), whose open connections the gauge reads. */
  readonly connections: Map<CallDoor, ConnectionGuard>;
}

const byRegistry = new WeakMap<object, CallMetrics>();

/** The call instruments of a context's registry. */
export function callMetrics(ctx: AppContext): CallMetrics {
  const registry = ctx.metrics.registry;
  const found = byRegistry.get(registry);
  if (found) return found;
  const open = new Map<CallDoor, number>(DOORS.map((door) => [door, 0]));
  const connections = new Map<CallDoor, ConnectionGuard>();
  registry.gauge("sawt_calls", "Calls open now, by door.", () =>
    DOORS.map((door) => ({ labels: { door }, value: open.get(door) ?? 0 })),
  );
  registry.gauge(
    "sawt_call_connections",
    "Connections open on a call door (AudioSocket TCP, chan_websocket sockets), by door.",
    () => DOORS.map((door) => ({ labels: { door }, value: connections.get(door)?.open ?? 0 })),
  );
  registry.gauge("sawt_call_rtp_ports", "RTP ports externalMedia calls hold (calls.rtp_port_min..max).", () => [
    { labels: {}, value: rtpPortsInUse(EXTERNAL_MEDIA_PORTS) },
  ]);
  const metrics: CallMetrics = {
    open,
    connections,
    ended: registry.counter("sawt_calls_ended_total", "Calls ended, by door and reason.", ["door", "reason"]),
    refused: registry.counter(
      "sawt_calls_refused_total",
      "Calls and connections refused, by door and reason (network, limit, key, protocol, unavailable, silent).",
      ["door", "reason"],
    ),
    frameDelay: registry.histogram(
      "sawt_call_frame_delay_seconds",
      "How long a received audio frame waited from its arrival until it was transcribed, by door.",
      ["door"],
      FRAME_BUCKETS,
    ),
    framesLate: registry.counter(
      "sawt_call_frames_late_total",
      "Received audio frames transcribed more than 200 ms after they arrived (the call fell behind real time), by door.",
      ["door"],
    ),
    framesSentLate: registry.counter(
      "sawt_call_frames_sent_late_total",
      "Frames of Sawt's speech sent more than one frame time after their slot, by door.",
      ["door"],
    ),
    webhooks: registry.counter(
      "sawt_call_webhook_attempts_total",
      "End-of-call webhook delivery attempts, by outcome (delivered, failed: the receiver did not answer 2xx).",
      ["outcome"],
    ),
  };
  byRegistry.set(registry, metrics);
  return metrics;
}

/** Moves the per-door gauge of open calls. */
export function countOn(gauge: Map<CallDoor, number>, door: CallDoor, delta: 1 | -1): void {
  gauge.set(door, Math.max(0, (gauge.get(door) ?? 0) + delta));
}
