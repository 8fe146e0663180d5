/**
 * Applies an SDP offer to a session (RFC 6787 §4.2 and RFC 3264): a new control section opens a
 * channel of its resource, a section offered with port 0 removes one (re-INVITE), m=audio gets or
 * keeps an RTP port and its codec; the answer has one section per offered one, in order. A
 * resource Sawt does not serve, audio with no common codec, or audio whose address is not an IP
 * literal in `mrcp.allowed_networks` (the box would send RTP to a host the operator never
 * allowed, or look a name up) is refused with port 0. `c=IN IP4 0.0.0.0` (RFC 3264 §8.4 hold) is
 * kept and sent nothing.
 */
import { mrcpMetrics } from "../metrics.ts";
import { MrcpStatus } from "../control/message.ts";
import type { MrcpResource, ResourceName } from "../resource.ts";
import { RtpEndpoint } from "../../media/endpoint.ts";
import { type AnswerMedia, attribute, negotiateAudio, type SdpOffer } from "./sdp.ts";
import type { MrcpSession, SessionHost } from "../session.ts";

/** The offer could not be served at all (SIP status to answer). */
export class OfferRefused extends Error {
  constructor(
    readonly status: 488 | 503,
    message: string,
  ) {
    super(message);
    this.name = "OfferRefused";
  }
}

/** What applying an offer needs. */
export interface OfferContext {
  readonly host: SessionHost;
  readonly resources: ReadonlyMap<string, MrcpResource>;
  readonly bind: { readonly host: string; readonly mrcpPort: number; readonly rtpMin: number; readonly rtpMax: number };
}

/** Applies `offer`; returns the answer's sections. Throws {@link OfferRefused}. */
export async function applyOffer(session: MrcpSession, offer: SdpOffer, context: OfferContext): Promise<AnswerMedia[]> {
  const { host, resources, bind } = context;
  const sections: AnswerMedia[] = [];
  let audioIndex = 0;
  for (const media of offer.media) {
    if (media.media === "application" && media.proto === "TCP/MRCPv2") {
      const name = attribute(media, "resource");
      const resource = name ? resources.get(name) : undefined;
      if (!resource) {
        sections.push({ kind: "rejected", offered: media });
        continue;
      }
      const existing = session.channels.get(resource.name);
      if (media.port === 0) {
        session.removeChannel(resource.name);
        sections.push({ kind: "rejected", offered: media });
        continue;
      }
      const cmid = attribute(media, "cmid");
      const id = existing?.id ?? `${session.id}@${resource.name}`;
      if (!existing) openChannel(session, resource, id, cmid, host, context);
      sections.push({
        kind: "control",
        port: bind.mrcpPort,
        channel: id,
        cmid,
        connection: existing ? "existing" : "new",
      });
    } else if (media.media === "audio" && media.proto === "RTP/AVP") {
      const negotiated = media.port === 0 ? undefined : negotiateAudio(media);
      const current = session.audio[audioIndex];
      const hold = negotiated?.remote.address === "0.0.0.0";
      if (!negotiated || !(hold || host.allowed(negotiated.remote.address))) {
        sections.push({ kind: "rejected", offered: media });
        continue;
      }
      const mid = attribute(media, "mid");
      let stream = current;
      if (!stream) {
        const rtp = await RtpEndpoint.open(
          bind.host,
          { min: bind.rtpMin, max: bind.rtpMax },
          () => stream!.negotiated,
          "mrcp",
        ).catch(() => {
          throw new OfferRefused(503, "No free RTP port");
        });
        stream = { mid, rtp, negotiated };
        rtp.handlers = { dropped: (reason) => mrcpMetrics(host.ctx).rtpStray.inc({ reason }) };
        session.audio.push(stream);
      } else stream.negotiated = negotiated;
      stream.rtp.setRemote(negotiated.remote.address, hold ? 0 : negotiated.remote.port);
      audioIndex++;
      sections.push({ kind: "audio", port: stream.rtp.port, audio: negotiated, mid });
    } else {
      sections.push({ kind: "rejected", offered: media });
    }
  }
  if (!sections.some((s) => s.kind === "control") && session.channels.size === 0) {
    throw new OfferRefused(488, "No MRCP resource Sawt serves was offered");
  }
  return sections;
}

function openChannel(
  session: MrcpSession,
  resource: MrcpResource,
  id: string,
  cmid: string | undefined,
  host: SessionHost,
  context: OfferContext,
): void {
  const entry = { channel: undefined as ReturnType<MrcpResource["open"]> | undefined, id, cmid };
  session.channels.set(resource.name as ResourceName, entry);
  host.control.add(
    id,
    session.view(cmid),
    resource,
    (io) => {
      try {
        entry.channel = resource.open(host.ctx, io);
      } catch {
        // A resource that cannot open answers every request with a server error.
        entry.channel = { request: (r) => io.respond(r, MrcpStatus.INTERNAL, "COMPLETE"), close: () => {} };
      }
      return entry.channel;
    },
    () => session.end("connection"),
  );
  void context;
}
