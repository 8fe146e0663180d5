/**
 * A minimal hand-written MRCPv2 client for tests at the protocol's edges: SIP over UDP from a
 * chosen loopback address (INVITE with an SDP offer, ACK, BYE, raw datagrams), the MRCP control
 * connection (raw bytes in, messages out split by their start-line length), and an RTP socket.
 * It writes messages as text by hand so a test can break them on purpose.
 */
import { createSocket, type Socket } from "node:dgram";
import { connect, type Socket as TcpSocket } from "node:net";

let seq = 0;
const id = () => `${process.pid}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;

/** A SIP response as the client reads it. */
export interface SipReply {
  readonly status: number;
  readonly text: string;
  header(name: string): string | undefined;
}

function parseReply(text: string): SipReply {
  const status = Number(/^SIP\/2\.0 (\d{3})/.exec(text)?.[1] ?? 0);
  return {
    status,
    text,
    header: (name) => new RegExp(`^${name}:[ \\t]*(.*)$`, "im").exec(text)?.[1]?.trim(),
  };
}

/** A UDP SIP endpoint bound to `address`. */
export class SipClient {
  private readonly replies: SipReply[] = [];
  private waiters: (() => void)[] = [];
  readonly callId = `${id()}@test`;
  readonly tag = id();
  private cseq = 1;

  private constructor(
    readonly socket: Socket,
    readonly address: string,
    readonly port: number,
    private readonly server: number,
  ) {
    socket.on("message", (bytes) => {
      this.replies.push(parseReply(bytes.toString("utf8")));
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static async open(serverPort: number, address = "127.0.0.1"): Promise<SipClient> {
    const socket = createSocket("udp4");
    await new Promise<void>((resolve) => socket.bind(0, address, () => resolve()));
    return new SipClient(socket, address, socket.address().port, serverPort);
  }

  /** Sends raw bytes to the server's SIP port. */
  raw(bytes: string | Uint8Array): void {
    this.socket.send(typeof bytes === "string" ? Buffer.from(bytes) : bytes, this.server, "127.0.0.1");
  }

  /** Waits for the next reply matching `accept` (final responses by default). */
  async next(accept: (r: SipReply) => boolean = (r) => r.status >= 200, timeoutMs = 5000): Promise<SipReply> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const at = this.replies.findIndex(accept);
      if (at >= 0) return this.replies.splice(at, 1)[0]!;
      if (Date.now() > deadline) throw new Error(`no SIP reply in ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /** Every reply received and not yet taken. */
  get pending(): readonly SipReply[] {
    return this.replies;
  }

  /**
   * A request's text with the usual headers; `branch` fixed for retransmissions, `contact` a URI
   * other than this socket's, `extra` header lines added after Max-Forwards (e.g. Record-Route).
   */
  request(
    method: string,
    options: {
      body?: string;
      branch?: string;
      toTag?: string;
      cseq?: number;
      user?: string;
      contact?: string;
      extra?: readonly string[];
    } = {},
  ): string {
    const body = options.body ?? "";
    const cseq = options.cseq ?? this.cseq++;
    const to = `<sip:${options.user ?? "sawt"}@127.0.0.1:${this.server}>${options.toTag ? `;tag=${options.toTag}` : ""}`;
    return [
      `${method} sip:${options.user ?? "sawt"}@127.0.0.1:${this.server} SIP/2.0`,
      `Via: SIP/2.0/UDP ${this.address}:${this.port};branch=${options.branch ?? `z9hG4bK${id()}`};rport`,
      "Max-Forwards: 70",
      ...(options.extra ?? []),
      `From: <sip:ivr@${this.address}:${this.port}>;tag=${this.tag}`,
      `To: ${to}`,
      `Call-ID: ${this.callId}`,
      `CSeq: ${cseq} ${method}`,
      `Contact: <${options.contact ?? `sip:ivr@${this.address}:${this.port}`}>`,
      ...(body ? ["Content-Type: application/sdp"] : []),
      `Content-Length: ${Buffer.byteLength(body)}`,
      "",
      body,
    ].join("\r\n");
  }

  close(): void {
    this.socket.close();
  }
}

/** An SDP offer for `resources` with one audio stream on `rtpPort`. */
export function offer(
  resources: readonly string[],
  rtpPort: number,
  codecs = "0 8 96 101",
  direction = "sendrecv",
): string {
  const lines = ["v=0", "o=test 1 1 IN IP4 127.0.0.1", "s=-", "c=IN IP4 127.0.0.1", "t=0 0"];
  for (const resource of resources) {
    lines.push(
      "m=application 9 TCP/MRCPv2 1",
      "a=setup:active",
      "a=connection:new",
      `a=resource:${resource}`,
      "a=cmid:1",
    );
  }
  lines.push(
    `m=audio ${rtpPort} RTP/AVP ${codecs}`,
    "a=rtpmap:0 PCMU/8000",
    "a=rtpmap:8 PCMA/8000",
    "a=rtpmap:96 L16/8000",
    "a=rtpmap:101 telephone-event/8000",
    `a=${direction}`,
    "a=ptime:20",
    "a=mid:1",
  );
  return `${lines.join("\r\n")}\r\n`;
}

/** The MRCP control connection. */
export class MrcpConnection {
  private buffer = "";
  private readonly messages: string[] = [];

  private constructor(readonly socket: TcpSocket) {
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      this.buffer += chunk;
      for (;;) {
        const m = /^MRCP\/2\.0 (\d+) /.exec(this.buffer);
        const length = m ? Number(m[1]) : 0;
        if (!m || Buffer.byteLength(this.buffer) < length) break;
        const bytes = Buffer.from(this.buffer);
        this.messages.push(bytes.subarray(0, length).toString("utf8"));
        this.buffer = bytes.subarray(length).toString("utf8");
      }
    });
  }

  static async open(port: number): Promise<MrcpConnection> {
    const socket = connect(port, "127.0.0.1");
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", () => resolve());
      socket.once("error", reject);
    });
    return new MrcpConnection(socket);
  }

  /** Sends raw text. */
  raw(text: string): void {
    this.socket.write(text);
  }

  /** Sends a well-formed request. */
  send(method: string, requestId: number, channel: string, headers: Record<string, string> = {}, body = ""): void {
    const head = [`Channel-Identifier: ${channel}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    if (body) head.push(`Content-Length: ${Buffer.byteLength(body)}`);
    const rest = `${head.join("\r\n")}\r\n\r\n${body}`;
    let length = 0;
    let start = "";
    for (let i = 0; i < 3; i++) {
      start = `MRCP/2.0 ${length} ${method} ${requestId}\r\n`;
      length = Buffer.byteLength(start) + Buffer.byteLength(rest);
    }
    this.raw(`MRCP/2.0 ${length} ${method} ${requestId}\r\n${rest}`);
  }

  /** The next message matching `pattern`. */
  async next(pattern: RegExp, timeoutMs = 5000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const at = this.messages.findIndex((m) => pattern.test(m));
      if (at >= 0) return this.messages.splice(at, 1)[0]!;
      if (Date.now() > deadline)
        throw new Error(`no MRCP message matching ${pattern} (have: ${this.messages.join(" | ")})`);
      await Bun.sleep(10);
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Parses the answer's channel id, MRCP port and audio port. */
export function answerOf(sdp: string): { channel: string; mrcpPort: number; audioPort: number } {
  return {
    channel: /a=channel:(\S+)/.exec(sdp)?.[1] ?? "",
    mrcpPort: Number(/m=application (\d+)/.exec(sdp)?.[1] ?? 0),
    audioPort: Number(/m=audio (\d+)/.exec(sdp)?.[1] ?? 0),
  };
}
