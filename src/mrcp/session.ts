/**
 * One MRCP session: a SIP dialog, its control channels (one per resource) and its RTP streams.
 * It ends once, whatever ends it (BYE, the session or idle timeout, a lost control connection, a
 * 2xx never ACKed, shutdown): every channel closed, every RTP port freed, the gauge decremented,
 * one log line; a BYE goes to the peer when the end was not its own, routed as RFC 3261 §12.2.1.1
 * says (./dialog.ts).
 */
import { randomBytes } from "node:crypto";
import type { AppContext } from "../core/context.ts";
import type { ApiKeyRecord } from "../store/keys.ts";
import type { MrcpControl } from "./control/listener.ts";
import { dialogRequestTarget, type NextHop } from "./signaling/dialog.ts";
import { addressUri, header, headerParam, type SipMessage } from "./signaling/message.ts";
import type { MrcpChannel, MrcpSessionView, ResourceName } from "./resource.ts";
import type { RtpEndpoint } from "../media/endpoint.ts";
import type { AudioCodec } from "../media/codec.ts";
import type { NegotiatedAudio } from "./signaling/sdp.ts";

/** One m=audio of the session. */
export interface SessionAudio {
  readonly mid: string | undefined;
  readonly rtp: RtpEndpoint;
  negotiated: NegotiatedAudio;
}

/** Why a session ended (log field). */
export type EndReason = "bye" | "cancel" | "idle" | "timeout" | "connection" | "no-ack" | "shutdown" | "removed";

/** What the session needs from its server. */
export interface SessionHost {
  readonly ctx: AppContext;
  readonly control: MrcpControl;
  /** Sends the session's BYE to `hop`. */
  sendBye(session: MrcpSession, message: SipMessage, hop: NextHop): void;
  /**
   * Whether the box may send to `address` (`mrcp.allowed_networks`, IP literals only): no byte
   * leaves the box for a host the operator did not configure, whatever an SDP or a Contact says.
   */
  allowed(address: string): boolean;
  /** The session ended: forget it. */
  ended(session: MrcpSession): void;
  /** Our Via sent-by and Contact host:port. */
  readonly local: { readonly host: string; readonly port: number };
}

/** See the file comment. */
export class MrcpSession {
  readonly id = randomBytes(8).toString("hex");
  readonly localTag = randomBytes(6).toString("hex");
  readonly channels = new Map<
    ResourceName,
    { channel: MrcpChannel | undefined; id: string; cmid: string | undefined }
  >();
  readonly audio: SessionAudio[] = [];
  /** SDP o= version, incremented per answer. */
  sdpVersion = 0;
  confirmed = false;
  /** The dialog's route set: the INVITE's Record-Route values, in order (RFC 3261 §12.1.1). */
  readonly routeSet: readonly string[];
  /** The peer's Contact URI, refreshed by a re-INVITE's (§12.2.2); undefined if it had none. */
  remoteTarget: string | undefined;
  private lastActivity = performance.now();
  private readonly opened = performance.now();
  private ended = false;
  private localCseq = 1;

  constructor(
    private readonly host: SessionHost,
    readonly callId: string,
    readonly invite: SipMessage,
    readonly peer: { readonly address: string; readonly port: number },
    readonly key: ApiKeyRecord,
  ) {
    this.routeSet = [...(invite.headers.get("record-route") ?? [])];
    this.refreshTarget(invite);
  }

  /** A (re-)INVITE's Contact becomes the remote target; one without a Contact keeps the old one. */
  refreshTarget(request: SipMessage): void {
    const contact = addressUri(header(request, "contact"));
    if (contact) this.remoteTarget = contact;
  }

  /** The view a channel of `resource` gets: its linked audio, barge-in, activity. */
  view(cmid: string | undefined): MrcpSessionView {
    const session = this;
    return {
      id: this.id,
      key: this.key,
      get audio() {
        const linked = session.audio.find((a) => cmid !== undefined && a.mid === cmid) ?? session.audio[0];
        if (!linked) return undefined;
        const { codec, telephoneEvent } = linked.negotiated;
        return { codec, telephoneEvent, rtp: linked.rtp } as {
          codec: AudioCodec;
          telephoneEvent: number | undefined;
          rtp: RtpEndpoint;
        };
      },
      bargeIn: (from) => {
        for (const entry of this.channels.values()) if (entry.channel !== from) entry.channel?.bargeIn?.();
      },
      touch: () => this.touch(),
    };
  }

  /** Any activity: MRCP message, busy channel. */
  touch(): void {
    this.lastActivity = performance.now();
  }

  /** Milliseconds since the last MRCP message or RTP packet. */
  idleMs(now: number): number {
    if ([...this.channels.values()].some((entry) => entry.channel?.busy?.())) {
      // Idle time counts from the end of the last request, not from before it.
      this.touch();
      return 0;
    }
    const rtp = Math.max(...this.audio.map((a) => a.rtp.lastReceived), 0);
    return now - Math.max(this.lastActivity, rtp);
  }

  /** Milliseconds since the INVITE. */
  ageMs(now: number): number {
    return now - this.opened;
  }

  /** Ends the session (idempotent); see the file comment. */
  end(reason: EndReason): void {
    if (this.ended) return;
    this.ended = true;
    for (const { id } of this.channels.values()) this.host.control.remove(id);
    this.channels.clear();
    for (const stream of this.audio) stream.rtp.close();
    if (reason !== "bye" && reason !== "cancel" && this.confirmed) this.sendBye();
    this.host.ctx.log.info("mrcp session", {
      session: this.id,
      key_id: this.key.id,
      reason,
      ms: Math.round(performance.now() - this.opened),
    });
    this.host.ended(this);
  }

  /** Removes one resource's channel (a re-INVITE dropped it). */
  removeChannel(resource: ResourceName): void {
    const entry = this.channels.get(resource);
    if (!entry) return;
    this.host.control.remove(entry.id);
    this.channels.delete(resource);
  }

  /**
   * Our BYE, per RFC 3261 §12.2.1.1: to the remote target, or through the route set. Without a
   * usable Contact (or route) it goes where the INVITE came from, as the only address known; so
   * does a next hop outside `mrcp.allowed_networks` or named by a host name (no DNS lookup, no
   * packet to a host the operator did not allow: the INVITE's source always is allowed).
   */
  private sendBye(): void {
    const { host, port } = this.host.local;
    const from = header(this.invite, "from")!;
    const to = header(this.invite, "to")!;
    const ours = headerParam(to, "tag") ? to : `${to};tag=${this.localTag}`;
    const target = dialogRequestTarget(this.routeSet, this.remoteTarget ?? addressUri(from)!);
    const headers = new Map<string, string[]>([
      ["via", [`SIP/2.0/UDP ${host}:${port};branch=z9hG4bK${randomBytes(8).toString("hex")};rport`]],
      ["max-forwards", ["70"]],
      ["from", [ours]],
      ["to", [from]],
      ["call-id", [this.callId]],
      ["cseq", [`${this.localCseq++} BYE`]],
    ]);
    if (target.route.length > 0) headers.set("route", [...target.route]);
    const named = this.remoteTarget || target.route.length > 0 ? target.hop : undefined;
    const hop = named && this.host.allowed(named.address) ? named : this.peer;
    this.host.sendBye(this, { method: "BYE", uri: target.uri, headers, body: "" }, hop);
  }
}
