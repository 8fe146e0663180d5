/**
 * RTP (RFC 3550) for one MRCP session's audio: a UDP socket on a port from the configured range,
 * packets in (audio to the recogniser, RFC 4733 telephone-events as digits) and out (synthesised
 * audio in 20 ms packets paced in real time: sequence, timestamp, SSRC, marker bit at the start of
 * each talk spurt). Only packets from the address the SDP named are taken; others are dropped and
 * counted, so a stray or spoofed sender cannot inject audio.
 */
import { createSocket, type Socket } from "node:dgram";
import { randomInt } from "node:crypto";
import type { AudioCodec } from "./codec.ts";

/** One received RTP packet's fields. */
export interface RtpPacket {
  readonly payloadType: number;
  readonly marker: boolean;
  readonly sequence: number;
  readonly timestamp: number;
  readonly ssrc: number;
  readonly payload: Uint8Array;
}

/** Parses an RTP packet (version 2, CSRCs and extension skipped, padding removed); undefined when it is not one. */
export function parseRtp(bytes: Uint8Array): RtpPacket | undefined {
  if (bytes.length < 12 || bytes[0]! >> 6 !== 2) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 12 + (bytes[0]! & 0x0f) * 4;
  if (bytes[0]! & 0x10) {
    if (bytes.length < offset + 4) return undefined;
    offset += 4 + view.getUint16(offset + 2) * 4;
  }
  let end = bytes.length;
  if (bytes[0]! & 0x20) end -= bytes[bytes.length - 1]!;
  if (offset > end) return undefined;
  return {
    payloadType: bytes[1]! & 0x7f,
    marker: (bytes[1]! & 0x80) !== 0,
    sequence: view.getUint16(2),
    timestamp: view.getUint32(4),
    ssrc: view.getUint32(8),
    payload: bytes.subarray(offset, end),
  };
}

/** Builds an RTP packet. */
export function buildRtp(fields: Omit<RtpPacket, "payload">, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + payload.length);
  const view = new DataView(out.buffer);
  out[0] = 0x80;
  out[1] = (fields.marker ? 0x80 : 0) | (fields.payloadType & 0x7f);
  view.setUint16(2, fields.sequence & 0xffff);
  view.setUint32(4, fields.timestamp >>> 0);
  view.setUint32(8, fields.ssrc >>> 0);
  out.set(payload, 12);
  return out;
}

const DTMF_EVENTS = "0123456789*#ABCD";

/** An RFC 4733 telephone-event payload: the digit and whether this packet ends it. */
export function parseTelephoneEvent(payload: Uint8Array): { digit: string; end: boolean } | undefined {
  if (payload.length < 4 || payload[0]! > 15) return undefined;
  return { digit: DTMF_EVENTS[payload[0]!]!, end: (payload[1]! & 0x80) !== 0 };
}

/** What an endpoint reports. */
export interface RtpHandlers {
  /** Audio payload bytes in the codec's wire form. */
  audio?(payload: Uint8Array): void;
  /** A DTMF digit, once per event (its first packet). */
  digit?(digit: string): void;
  /** A packet from an address other than the negotiated one (dropped). */
  stray?(): void;
}

/** Ports handed out, so two sessions never share one (the OS bind would tell, but later). */
const portsInUse = new Set<number>();

/** The number of RTP ports currently held (tests, metrics). */
export function rtpPortsInUse(): number {
  return portsInUse.size;
}

/** One session's RTP socket; see the file comment. */
export class RtpEndpoint {
  private remote: { address: string; port: number } | undefined;
  private readonly ssrc = randomInt(1, 2 ** 31);
  private sequence = randomInt(0, 65536);
  private timestamp = randomInt(0, 2 ** 31);
  private lastDigitTimestamp = -1;
  private closed = false;
  handlers: RtpHandlers = {};
  /** When the last packet from the peer arrived (idle detection). */
  lastReceived = performance.now();

  private constructor(
    private readonly socket: Socket,
    readonly port: number,
    private readonly codec: () => { codec: AudioCodec; telephoneEvent?: number },
  ) {
    socket.on("message", (bytes, from) => this.receive(bytes, from.address, from.port));
    socket.on("error", () => {});
  }

  /** Binds an even port in [min, max] on `host`; throws when the range is exhausted. */
  static async open(
    host: string,
    range: { min: number; max: number },
    codec: () => { codec: AudioCodec; telephoneEvent?: number },
  ): Promise<RtpEndpoint> {
    const first = range.min + (range.min % 2);
    const slots = Math.floor((range.max - first) / 2) + 1;
    const offset = randomInt(0, Math.max(1, slots));
    for (let i = 0; i < slots; i++) {
      const port = first + ((offset + i) % slots) * 2;
      if (portsInUse.has(port)) continue;
      portsInUse.add(port);
      const socket = createSocket({ type: host.includes(":") ? "udp6" : "udp4" });
      const bound = await new Promise<boolean>((resolve) => {
        socket.once("error", () => resolve(false));
        socket.bind(port, host, () => resolve(true));
      });
      if (bound) return new RtpEndpoint(socket, port, codec);
      portsInUse.delete(port);
      socket.close();
    }
    throw new Error("No free RTP port in mrcp.rtp_port_min..rtp_port_max");
  }

  /** Sets where the peer's RTP comes from and goes to (from its SDP). */
  setRemote(address: string, port: number): void {
    this.remote = { address, port };
  }

  private receive(bytes: Uint8Array, address: string, port: number): void {
    const remote = this.remote;
    // Only the negotiated address may send; its port may differ from the one it receives on
    // (symmetric RTP is common, not required).
    if (!remote || address.replace(/^::ffff:/, "") !== remote.address) {
      this.handlers.stray?.();
      return;
    }
    void port;
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
      this.socket.send(packet, remote.port, remote.address);
    } catch {
      // closed between the check and the send
    }
  }

  /** Frees the socket and its port. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    portsInUse.delete(this.port);
    this.handlers = {};
    try {
      this.socket.close();
    } catch {
      // already closed
    }
  }
}
