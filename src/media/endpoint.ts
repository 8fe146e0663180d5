/**
 * One audio stream's RTP endpoint (RFC 3550) on a port of the range (./ports.ts): packets in (audio
 * to the recogniser, RFC 4733 telephone-events as digits) and out (synthesised audio, paced by
 * ./pacer.ts: sequence, timestamp, SSRC, marker bit at the start of each talk spurt). Only packets
 * from the address the SDP named are taken; others are dropped and counted, so a stray or spoofed
 * sender cannot inject audio. Without SDP (ARI externalMedia) the endpoint latches instead: the
 * first RTP packet's source becomes that address, and everything else is held to it.
 *
 * SSRC latching (issue 39): the first RTP packet from that address fixes the stream's SSRC, and a
 * packet with another SSRC is dropped and counted too, so a second stream from the same host (a
 * forked leg, a late stream of an earlier call) never mixes into the recogniser. RFC 3550 lets a
 * source change its SSRC (§8.2, a collision, or a restarted sender), so the change is taken when
 * it is plausibly that: after a re-INVITE's SDP (setRemote latches afresh) or once the latched
 * source has sent nothing for {@link RELATCH_AFTER_MS}. A new SSRC in the middle of a live stream
 * is not a legitimate change, and that is what is refused. Packets that are not RTP at all are
 * dropped and counted as malformed. A dropped packet changes nothing else: no audio, no digit, and
 * it does not count as activity for the session's idle timer.
 */
import { randomInt } from "node:crypto";
import type { AudioCodec } from "./codec.ts";
import { bindRtpPort, type HeldPort } from "./ports.ts";
import { buildRtp, parseRtp } from "./rtp-packet.ts";
import { parseTelephoneEvent } from "./telephone-event.ts";

/**
 * How long the latched source must have been silent before a packet with another SSRC from the
 * negotiated address is taken as the stream's new source: longer than any gap inside a talk spurt
 * (packets come every 20 ms; jitter and a PBX's scheduling add tens of milliseconds), short enough
 * that a sender restarted mid-call is heard again within a breath.
 */
export const RELATCH_AFTER_MS = 1000;

/** Why a received packet was dropped. */
export type RtpDropReason = "address" | "ssrc" | "malformed";

/** What an endpoint reports. */
export interface RtpHandlers {
  /** Audio payload bytes in the codec's wire form. */
  audio?(payload: Uint8Array): void;
  /** A DTMF digit, once per event (its first packet). */
  digit?(digit: string): void;
  /** A packet dropped: from another address, another SSRC, or not RTP. */
  dropped?(reason: RtpDropReason): void;
}

/** One session's RTP socket; see the file comment. */
export class RtpEndpoint {
  private remote: { address: string; port: number } | undefined;
  private readonly ssrc = randomInt(1, 2 ** 31);
  private sequence = randomInt(0, 65536);
  private timestamp = randomInt(0, 2 ** 31);
  private lastDigitTimestamp = -1;
  /** The SSRC the peer's stream latched to (undefined until its first packet). */
  private peerSsrc: number | undefined;
  private closed = false;
  /** Set while the endpoint waits to latch onto its first packet's source. */
  private latching: ((address: string, payloadType: number) => boolean) | undefined;
  /** Latched: the source's port is held too (no SDP said which ports the peer may use). */
  private latched = false;
  handlers: RtpHandlers = {};
  /** When the last packet from the peer arrived (idle detection). */
  lastReceived = performance.now();

  private constructor(
    private readonly held: HeldPort,
    private readonly codec: () => { codec: AudioCodec; telephoneEvent?: number },
  ) {
    held.socket.on("message", (bytes, from) => this.receive(bytes, from.address, from.port));
    held.socket.on("error", () => {});
  }

  /** The local port. */
  get port(): number {
    return this.held.port;
  }

  /** Opens an endpoint on a free port of `range` on `host`, held for `door`; throws when the range is exhausted. */
  static async open(
    host: string,
    range: { min: number; max: number },
    codec: () => { codec: AudioCodec; telephoneEvent?: number },
    door: string,
  ): Promise<RtpEndpoint> {
    return new RtpEndpoint(await bindRtpPort(host, range, door), codec);
  }

  /** Sets where the peer's RTP comes from and goes to (from its SDP); the next packet latches the SSRC. */
  setRemote(address: string, port: number): void {
    this.remote = { address, port };
    this.peerSsrc = undefined;
  }

  /**
   * No SDP names the peer (ARI externalMedia): the first RTP packet whose source `accept` takes
   * (it hears the address and the packet's payload type, before the packet is read) makes that
   * address and port the remote, and only that address and port are heard from then on (Asterisk
   * sends from the port it receives on). Packets it refuses are dropped as strays.
   */
  latch(accept: (address: string, payloadType: number) => boolean): void {
    this.latching = accept;
  }

  private receive(bytes: Uint8Array, address: string, port: number): void {
    if (!this.remote && this.latching) {
      const first = parseRtp(bytes);
      const source = address.replace(/^::ffff:/, "");
      if (!first || !this.latching(source, first.payloadType)) {
        this.handlers.dropped?.(first ? "address" : "malformed");
        return;
      }
      this.remote = { address: source, port };
      this.latching = undefined;
      this.latched = true;
    }
    const remote = this.remote;
    // Only the negotiated address may send; its port may differ from the one it receives on
    // (symmetric RTP is common, not required) unless the endpoint latched onto it.
    if (!remote || address.replace(/^::ffff:/, "") !== remote.address || (this.latched && port !== remote.port)) {
      this.handlers.dropped?.("address");
      return;
    }
    const packet = parseRtp(bytes);
    if (!packet) {
      this.handlers.dropped?.("malformed");
      return;
    }
    const now = performance.now();
    if (this.peerSsrc !== undefined && packet.ssrc !== this.peerSsrc && now - this.lastReceived < RELATCH_AFTER_MS) {
      this.handlers.dropped?.("ssrc");
      return;
    }
    this.peerSsrc = packet.ssrc;
    this.lastReceived = now;
    const { codec, telephoneEvent } = this.codec();
    if (telephoneEvent !== undefined && packet.payloadType === telephoneEvent) {
      const event = parseTelephoneEvent(packet.payload);
      if (event && packet.timestamp !== this.lastDigitTimestamp) {
        this.lastDigitTimestamp = packet.timestamp;
        this.handlers.digit?.(event.digit);
      }
    } else if (packet.payloadType === codec.payloadType) {
      this.handlers.audio?.(packet.payload);
    }
  }

  /** Sends one packet of `samples` samples' worth of payload; `marker` starts a talk spurt. */
  send(payload: Uint8Array, samples: number, marker: boolean): void {
    const remote = this.remote;
    if (!remote || remote.port === 0) return;
    const { codec } = this.codec();
    const packet = buildRtp(
      { payloadType: codec.payloadType, marker, sequence: this.sequence, timestamp: this.timestamp, ssrc: this.ssrc },
      payload,
    );
    this.sequence = (this.sequence + 1) & 0xffff;
    this.timestamp = (this.timestamp + samples) >>> 0;
    if (this.closed) return; // a pacer tick may outlive the session
    try {
      this.held.socket.send(packet, remote.port, remote.address);
    } catch {
      // closed between the check and the send
    }
  }

  /** Frees the socket and its port. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.handlers = {};
    this.held.release();
  }
}
