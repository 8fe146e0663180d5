/**
 * The fuzzer's SIP endpoints: a UDP socket and TCP connections to the box's SIP port, each keeping
 * every message the box sent (answers, and its own BYEs) so that all of them are checked, and
 * waiting for the final answer to one Call-ID when a case needs it.
 */
import { createSocket, type Socket } from "node:dgram";
import { connect, type Socket as TcpSocket } from "node:net";
import { readAnswer, type SipAnswer } from "./sip-wire.ts";

/** What every SIP peer offers a door. */
export interface SipPeer {
  /** `host:port` for Via, From and Contact. */
  readonly from: string;
  send(bytes: Uint8Array): void;
  /** Every message received since the last call (each is checked by the door). */
  drain(): string[];
  /**
   * The final answer to `method` in `callId` (taken from what arrived; any method when undefined),
   * or undefined after `timeoutMs`.
   */
  final(
    callId: string,
    method: string | undefined,
    timeoutMs: number,
    retransmit?: () => void,
  ): Promise<SipAnswer | undefined>;
  close(): void;
}

const callIdOf = (text: string) => /^(?:Call-ID|i):[ \t]*(.*)$/im.exec(text)?.[1]?.trim();
const cseqMethod = (text: string) => /^CSeq:[ \t]*\d+ (\S+)/im.exec(text)?.[1]?.toUpperCase();

abstract class Collecting {
  protected readonly inbox: string[] = [];
  private readonly unchecked: string[] = [];
  private wake: (() => void) | undefined;

  protected received(text: string): void {
    this.inbox.push(text);
    this.unchecked.push(text);
    this.wake?.();
  }

  drain(): string[] {
    return this.unchecked.splice(0);
  }

  async final(
    callId: string,
    method: string | undefined,
    timeoutMs: number,
    retransmit?: () => void,
  ): Promise<SipAnswer | undefined> {
    const deadline = performance.now() + timeoutMs;
    let resent = false;
    for (;;) {
      const at = this.inbox.findIndex(
        (t) =>
          callIdOf(t) === callId &&
          (readAnswer(t)?.status ?? 0) >= 200 &&
          (method === undefined || cseqMethod(t) === method.toUpperCase()),
      );
      if (at >= 0) {
        const text = this.inbox.splice(at, 1)[0]!;
        return readAnswer(text);
      }
      const left = deadline - performance.now();
      if (left <= 0) return undefined;
      // UDP may lose a datagram under load: a UAC retransmits after T1 (RFC 3261 §17.1.2.2).
      if (retransmit && !resent && left < timeoutMs - 500) {
        resent = true;
        retransmit();
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  }

  /** Forgets answers nobody asked for (already checked through drain()). */
  protected trim(): void {
    if (this.inbox.length > 200) this.inbox.splice(0, this.inbox.length - 200);
  }
}

/** A UDP socket on 127.0.0.1 talking to the box's SIP port. */
export class UdpSipPeer extends Collecting implements SipPeer {
  private constructor(
    private readonly socket: Socket,
    private readonly port: number,
  ) {
    super();
    socket.on("message", (bytes) => {
      this.received(bytes.toString("utf8"));
      this.trim();
    });
  }

  static async open(port: number): Promise<UdpSipPeer> {
    const socket = createSocket("udp4");
    socket.on("error", () => {});
    await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
    return new UdpSipPeer(socket, port);
  }

  get from(): string {
    return `127.0.0.1:${this.socket.address().port}`;
  }

  send(bytes: Uint8Array): void {
    this.socket.send(bytes, this.port, "127.0.0.1");
  }

  close(): void {
    this.socket.close();
  }
}

/** One TCP connection to the box's SIP port; messages framed by Content-Length. */
export class TcpSipPeer extends Collecting implements SipPeer {
  private buffer = Buffer.alloc(0);
  closed = false;

  private constructor(private readonly socket: TcpSocket) {
    super();
    socket.on("data", (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      for (;;) {
        const end = this.buffer.indexOf("\r\n\r\n");
        if (end < 0) break;
        const head = this.buffer.subarray(0, end).toString("utf8");
        const length = Number(/^(?:Content-Length|l):[ \t]*(\d+)/im.exec(head)?.[1] ?? 0);
        if (this.buffer.length < end + 4 + length) break;
        this.received(this.buffer.subarray(0, end + 4 + length).toString("utf8"));
        this.buffer = this.buffer.subarray(end + 4 + length);
      }
      this.trim();
    });
    socket.on("close", () => (this.closed = true));
    socket.on("error", () => {});
  }

  static async open(port: number): Promise<TcpSipPeer> {
    const socket = connect(port, "127.0.0.1");
    await new Promise<void>((resolve) => {
      socket.once("connect", () => resolve());
      socket.once("close", () => resolve());
    });
    return new TcpSipPeer(socket);
  }

  get from(): string {
    return `127.0.0.1:${this.socket.localPort ?? 0}`;
  }

  send(bytes: Uint8Array): void {
    if (!this.closed) this.socket.write(bytes);
  }

  /** Waits until the box closed the connection, or `ms` passed. */
  async closedWithin(ms: number): Promise<boolean> {
    const deadline = performance.now() + ms;
    while (!this.closed && performance.now() < deadline) await Bun.sleep(10);
    return this.closed;
  }

  close(): void {
    this.socket.destroy();
  }
}
