/**
 * Sawt's MRCPv2 server (RFC 6787): the SIP UAS (./uas.ts) sets sessions up, the control listener
 * (./control.ts) carries their channels' messages, RTP endpoints (./rtp.ts) their audio, and the
 * feature doors (src/tts/mrcp/, src/asr/mrcp/) serve the resources. Here: who may open a session
 * (`mrcp.allowed_networks`, `mrcp.peers` → API key, its rate limit), how many (`mrcp.max_sessions`,
 * 503 + Retry-After beyond), readiness (OPTIONS 200 / 503 while warming up or draining), and the
 * timers that end a session whose IVR vanished (`mrcp.idle_timeout_s`, `mrcp.session_timeout_s`,
 * a 2xx never ACKed, a control connection closed).
 */
import type { AppContext } from "../core/context.ts";
import { admit } from "../edge/auth.ts";
import { ConnectionGuard } from "../edge/connection-guard.ts";
import { MrcpControl } from "./control/listener.ts";
import { header, headerParam, responseTo, uriUser, type SipMessage } from "./signaling/message.ts";
import { countMrcpSession, mrcpMetrics } from "./metrics.ts";
import {
  advertisedAddress,
  parseCidr,
  inCidr,
  parsePeers,
  peerKeyId,
  type Cidr,
  type PeerRule,
} from "../edge/networks.ts";
import { applyOffer, OfferRefused } from "./signaling/offer.ts";
import type { MrcpResource } from "./resource.ts";
import { buildAnswer, parseSdp, SdpError } from "./signaling/sdp.ts";
import { MrcpSession, type SessionHost } from "./session.ts";
import { SipUas, type SipPeer } from "./signaling/uas.ts";

/** Seconds a refused INVITE is told to wait. */
const RETRY_AFTER_S = "5";

/** A bound MRCP server. */
export interface MrcpServer {
  readonly sipPort: number;
  readonly mrcpPort: number;
  /** Sessions open now. */
  readonly sessions: number;
  /** Ends every session (BYE to each peer) and closes the ports. */
  close(): Promise<void>;
}

/** Starts the MRCP server for `resources` on the configured ports. */
export async function startMrcpServer(ctx: AppContext, resources: readonly MrcpResource[]): Promise<MrcpServer> {
  const config = ctx.config.mrcp;
  if (config.rtp_port_min > config.rtp_port_max || config.rtp_port_min === 0) {
    throw new Error(
      `config: mrcp.rtp_port_min (${config.rtp_port_min}) must be above 0 and at most mrcp.rtp_port_max (${config.rtp_port_max})`,
    );
  }
  const hostName = ctx.config.server.host;
  const allowedNets = config.allowed_networks.map((n) => parseCidr(n)).filter((c): c is Cidr => c !== undefined);
  const allowed = (address: string) => allowedNets.some((net) => inCidr(address, net));
  const peers: PeerRule[] = parsePeers(config.peers);
  const byCall = new Map<string, MrcpSession>();
  const metrics = mrcpMetrics(ctx);
  const control = new MrcpControl(allowed, () => {});
  const maxConnections = config.max_connections || Math.max(32, 2 * config.max_sessions);
  const identifyMs = config.identify_timeout_s * 1000;
  control.guardWith(
    new ConnectionGuard(ctx, "mrcp", {
      max: maxConnections,
      identifyMs,
      expected: () => control.awaitedChannels,
    }),
  );
  const resourceMap = new Map(resources.map((r) => [r.name, r] as const));
  let uas: SipUas;
  let sipPort = 0;
  let mrcpPort = 0;
  const advertised = advertisedAddress(config.advertised_address, hostName);

  const host: SessionHost = {
    ctx,
    control,
    get local() {
      return { host: advertised, port: sipPort };
    },
    sendBye: (_session, message, hop) => uas.sendRequest(hop.address, hop.port, message),
    allowed,
    ended: (session) => {
      if (byCall.get(session.callId) === session) {
        byCall.delete(session.callId);
        countMrcpSession(ctx, -1);
      }
    },
  };

  const ready = () => !ctx.shuttingDown && (ctx.engines.tts.isReady() || ctx.engines.asr.isReady());
  const refuse = (request: SipMessage, status: number, reason?: string) =>
    responseTo(request, status, { reason, extra: status === 503 ? [["retry-after", RETRY_AFTER_S]] : [] });

  async function invite(request: SipMessage, peer: SipPeer, cancelled: AbortSignal): Promise<SipMessage> {
    const callId = header(request, "call-id")!;
    const existing = byCall.get(callId);
    const toTag = headerParam(header(request, "to"), "tag");
    if (toTag && !existing) return refuse(request, 481);
    if (!existing) {
      if (!ready()) return refuse(request, 503, "Service Unavailable");
      if (byCall.size >= config.max_sessions) return refuse(request, 503, "Too Many Sessions");
    }
    const contentType = header(request, "content-type")?.split(";")[0]?.trim().toLowerCase();
    if (contentType !== "application/sdp") return refuse(request, 415);
    let offer: ReturnType<typeof parseSdp>;
    try {
      offer = parseSdp(request.body);
    } catch (error) {
      if (error instanceof SdpError) return refuse(request, 400, error.message);
      throw error;
    }
    let session = existing;
    if (!session) {
      const keyId = peerKeyId(peers, peer.address, uriUser(request.uri));
      const key = keyId ? ctx.keys.get(keyId) : undefined;
      if (!key || key.revokedAt !== null) return refuse(request, 403, "No API key for this peer");
      try {
        admit(ctx, key);
      } catch {
        return refuse(request, 503, "Rate Limited");
      }
      session = new MrcpSession(host, callId, request, { address: peer.address, port: peer.port }, key);
      byCall.set(callId, session);
      countMrcpSession(ctx, 1);
    }
    try {
      const sections = await applyOffer(session, offer, {
        host,
        resources: resourceMap,
        bind: { host: hostName, mrcpPort, rtpMin: config.rtp_port_min, rtpMax: config.rtp_port_max },
      });
      if (cancelled.aborted) {
        session.end("cancel");
        return refuse(request, 487);
      }
      // A re-INVITE is a target refresh (RFC 3261 §12.2.2): its Contact is where our BYE goes now.
      if (existing) session.refreshTarget(request);
      const answer = buildAnswer(advertised, session.id, session.sdpVersion++, sections);
      return responseTo(request, 200, {
        toTag: session.localTag,
        extra: [
          ["contact", `<sip:sawt@${advertised}:${sipPort}>`],
          ["content-type", "application/sdp"],
          ["allow", "INVITE, ACK, BYE, CANCEL, OPTIONS"],
        ],
        body: answer,
      });
    } catch (error) {
      if (!existing) session.end("removed");
      if (error instanceof OfferRefused) return refuse(request, error.status, error.message);
      throw error;
    }
  }

  uas = new SipUas(
    {
      allowed,
      invite,
      ack: (request) => {
        const session = byCall.get(header(request, "call-id")!);
        if (session) session.confirmed = true;
      },
      ackTimeout: (callId) => {
        const session = byCall.get(callId);
        if (session && !session.confirmed) session.end("no-ack");
      },
      bye: (request) => {
        const session = byCall.get(header(request, "call-id")!);
        if (!session) return responseTo(request, 481);
        session.end("bye");
        return responseTo(request, 200);
      },
      options: (request) =>
        ready()
          ? responseTo(request, 200, {
              extra: [
                ["allow", "INVITE, ACK, BYE, CANCEL, OPTIONS"],
                ["accept", "application/sdp"],
              ],
            })
          : refuse(request, 503, ctx.shuttingDown ? "Draining" : "Warming Up"),
      malformed: () => metrics.sipMalformed.inc(),
    },
    new ConnectionGuard(ctx, "sip", { max: maxConnections, identifyMs }),
  );

  mrcpPort = await control.listen(hostName, config.mrcp_port);
  try {
    sipPort = await uas.listen(hostName, config.sip_port);
  } catch (error) {
    await Promise.all([control.close(), uas.close()]);
    throw error;
  }

  const sweep = setInterval(() => {
    const now = performance.now();
    for (const session of [...byCall.values()]) {
      if (session.ageMs(now) > config.session_timeout_s * 1000) session.end("timeout");
      else if (session.idleMs(now) > config.idle_timeout_s * 1000) session.end("idle");
    }
  }, 1000);
  sweep.unref?.();

  return {
    get sipPort() {
      return sipPort;
    },
    get mrcpPort() {
      return mrcpPort;
    },
    get sessions() {
      return byCall.size;
    },
    async close() {
      clearInterval(sweep);
      for (const session of [...byCall.values()]) session.end("shutdown");
      // Let the BYEs leave before the socket closes.
      await Bun.sleep(20);
      await Promise.all([uas.close(), control.close()]);
    },
  };
}
