/**
 * The MRCP side of the interop suite: the npm `mrcp` package (1.4.2, MIT, an MRCPv2 message builder
 * and parser written independently of Sawt) over the TCP control channel an SDP answer names.
 * Its own socket class reads one message per TCP read and stalls when two arrive in one read, so
 * the stream is framed here, by the message-length field its parser reads; building and parsing
 * are the package's. Wrong-length and other broken messages are raw writes.
 */
import { connect, type Socket } from "node:net";
import mrcp, { type ParsedMrcpMessage } from "mrcp";

/** A message Sawt sent, parsed by the package, with its raw text. */
export interface MrcpMessage extends ParsedMrcpMessage {
  readonly raw: string;
  /** When it arrived (performance.now()). */
  readonly at: number;
}

/** One control connection. */
export class MrcpPeer {
  private buffer = Buffer.alloc(0);
  private readonly received: MrcpMessage[] = [];
  private waiters: (() => void)[] = [];
  private nextId = 1;
  /** Set when the stream could not be framed or parsed: the test fails on it. */
  error: string | undefined;
  closed = false;

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => this.data(chunk));
    socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
    socket.on("error", () => {});
  }

  /** Connects to `port` on loopback. */
  static async open(port: number, host = "127.0.0.1"): Promise<MrcpPeer> {
    const socket = connect(port, host);
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", () => resolve());
      socket.once("error", reject);
    });
    return new MrcpPeer(socket);
  }

  /** Sends a request built by the package; returns its request id. */
  send(method: string, channel: string, headers: Record<string, string> = {}, body?: string): number {
    const id = this.nextId++;
    this.socket.write(mrcp.builder.build_request(method, id, { "channel-identifier": channel, ...headers }, body));
    return id;
  }

  /** Sends bytes as they are. */
  raw(bytes: string | Uint8Array): void {
    this.socket.write(bytes);
  }

  /** The next message `accept` takes (removed from the inbox), or a timeout error. */
  async next(accept: (m: MrcpMessage) => boolean, timeoutMs = 10_000): Promise<MrcpMessage> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      if (this.error) throw new Error(`MRCP stream broken: ${this.error}`);
      const at = this.received.findIndex(accept);
      if (at >= 0) return this.received.splice(at, 1)[0]!;
      const left = deadline - performance.now();
      if (left <= 0 || this.closed) {
        const have = this.received.map((m) => m.raw.split("\r\n")[0]).join(" | ");
        throw new Error(`no matching MRCP message in ${timeoutMs} ms${this.closed ? " (closed)" : ""}; have: ${have}`);
      }
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, Math.min(left, 100));
      });
    }
  }

  /** The response to request `id`. */
  response(id: number, timeoutMs?: number): Promise<MrcpMessage> {
    return this.next((m) => m.type === "response" && m.request_id === id, timeoutMs);
  }

  /** The event `name` of request `id`. */
  event(name: string, id: number, timeoutMs?: number): Promise<MrcpMessage> {
    return this.next((m) => m.type === "event" && m.event_name === name && m.request_id === id, timeoutMs);
  }

  /** Everything received and not yet taken. */
  get inbox(): readonly MrcpMessage[] {
    return this.received;
  }

  close(): void {
    this.socket.destroy();
  }

  private data(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    try {
      for (;;) {
        const length = this.buffer.length > 0 ? mrcp.parser.get_msg_len(this.buffer) : null;
        if (length === null || this.buffer.length < length) break;
        const bytes = this.buffer.subarray(0, length);
        this.buffer = this.buffer.subarray(length);
        const raw = bytes.toString("utf8");
        this.received.push({ ...mrcp.parser.parse_msg(bytes), raw, at: performance.now() });
      }
    } catch (error) {
      this.error = String(error);
    }
    this.wake();
  }

  private wake(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }
}
