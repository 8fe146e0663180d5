/**
 * The MRCP door's metrics, registered once per metrics registry beside the others: open sessions
 * and the RTP ports they hold (gauges), SPEAK/RECOGNIZE requests by resource, method and completion cause with their latency
 * (SPEAK: until the first RTP packet; RECOGNIZE: until RECOGNITION-COMPLETE), RTP packets sent late
 * (over one packet time after their slot), RTP packets dropped (unexpected address or SSRC, not RTP), and SIP messages
 * that could not be parsed.
 */
import type { AppContext } from "../core/context.ts";
import { rtpPortsInUse } from "../media/ports.ts";
import type { Counter, Histogram } from "../serving/prometheus.ts";

const BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The MRCP door's instruments. */
export interface MrcpMetrics {
  readonly requests: Counter;
  readonly latency: Histogram;
  readonly rtpLate: Counter;
  readonly rtpStray: Counter;
  readonly sipMalformed: Counter;
}

const byRegistry = new WeakMap<object, { metrics: MrcpMetrics; sessions: { count: number } }>();

function entry(ctx: AppContext) {
  const registry = ctx.metrics.registry;
  let found = byRegistry.get(registry);
  if (!found) {
    const sessions = { count: 0 };
    registry.gauge("sawt_mrcp_sessions", "MRCP sessions open (SIP dialogs with their channels and RTP ports).", () => [
      { labels: {}, value: sessions.count },
    ]);
    registry.gauge("sawt_mrcp_rtp_ports", "RTP ports the MRCP door's sessions hold (mrcp.rtp_port_min..max).", () => [
      { labels: {}, value: rtpPortsInUse("mrcp") },
    ]);
    const metrics: MrcpMetrics = {
      requests: registry.counter(
        "sawt_mrcp_requests_total",
        "MRCP SPEAK and RECOGNIZE requests finished, by method and completion cause.",
        ["method", "cause"],
      ),
      latency: registry.histogram(
        "sawt_mrcp_latency_seconds",
        "SPEAK: request to first RTP packet; RECOGNIZE: request to RECOGNITION-COMPLETE.",
        ["method"],
        BUCKETS,
      ),
      rtpLate: registry.counter(
        "sawt_mrcp_rtp_late_total",
        "RTP packets sent more than one packet time after their slot.",
      ),
      rtpStray: registry.counter(
        "sawt_mrcp_rtp_stray_total",
        "RTP packets dropped: from an address other than the negotiated one (address), with an SSRC other than the stream's (ssrc), or not RTP (malformed).",
        ["reason"],
      ),
      sipMalformed: registry.counter("sawt_mrcp_sip_malformed_total", "SIP messages that could not be parsed."),
    };
    found = { metrics, sessions };
    byRegistry.set(registry, found);
  }
  return found;
}

/** The MRCP instruments of a context's registry. */
export function mrcpMetrics(ctx: AppContext): MrcpMetrics {
  return entry(ctx).metrics;
}

/** Moves the open-sessions gauge. */
export function countMrcpSession(ctx: AppContext, delta: 1 | -1): void {
  const sessions = entry(ctx).sessions;
  sessions.count = Math.max(0, sessions.count + delta);
}
