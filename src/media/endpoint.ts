/**
 * One audio stream's RTP endpoint (RFC 3550) on a port of the range (./ports.ts): packets in (audio
 * to the recogniser, RFC 4733 telephone-events as digits) and out (synthesised audio, paced by
 * ./pacer.ts: sequence, timestamp, SSRC, marker bit at the start of each talk spurt). Only packets
 * from the address the SDP named are taken; others are dropped and counted, so a stray or spoofed
 * sender cannot inject audio. Without SDP (ARI externalMedia) the endpoint latches instead: the
 * first RTP packet's source becomes that address, and everything else is held to it.
 */
import { randomInt } from "node:crypto";
import type { AudioCodec } from "./codec.ts";
import { bindRtpPort, type HeldPort } from "./ports.ts";
import { buildRtp, parseRtp } from "./rtp-packet.ts";
import { parseTelephoneEvent } from "./telephone-event.ts";

/** What an endpoint reports. */
export interface RtpHandlers {
  /** Audio payload bytes in the codec's wire form. */
  audio?(payload: Uint8Array): void;
  /** A DTMF digit, once per event (its first packet). */
  digit?(digit: string): void;
  /** A packet from an address other than the negotiated one (dropped). */
  stray?(): void;
}

/** One session's RTP socket; see the file comment. */
export class RtpEndpoint {
  private remote: { address: string; port: number } | undefined;
  private readonly ssrc = randomInt(1, 2 ** 31);
  private sequence = randomInt(0, 65536);
  private timestamp = randomInt(0, 2 ** 31);
  private lastDigitTimestamp = -1;
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

  /** Sets where the peer's RTP comes from and goes to (from its SDP). */
  setRemote(address: string, port: number): void {
    this.remote = { address, port };
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
        this.handlers.stray?.();
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
      this.handlers.stray?.();
      return;
    }
    const packet = parseRtp(bytes);
    if (!packet) return;
    this.lastReceived = performance.now();
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
