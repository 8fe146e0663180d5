/**
 * The SIP user agent server (RFC 3261) on one port, UDP and TCP: framing, server transactions and
 * retransmissions, and the requests Sawt's MRCP door takes (INVITE, ACK, BYE, CANCEL, OPTIONS;
 * anything else 405). A retransmitted request gets the response already sent, never a second
 * session (§17.2.1, §17.2.2); a 2xx to INVITE is resent over UDP with T1 doubling to T2 until its
 * ACK arrives, and a dialog whose ACK never comes is reported lost after 64·T1 (§13.3.1.4).
 * TCP connections are bounded by a {@link ConnectionGuard} (`mrcp.max_connections`,
 * `mrcp.identify_timeout_s`): a connection identifies itself with its first whole SIP message.
 */
import { createSocket, type Socket } from "node:dgram";
import { createServer, type Server, type Socket as TcpSocket } from "node:net";
import type { ConnectionGuard } from "../../edge/connection-guard.ts";
import {
  header,
  headerParam,
  parseSip,
  responseTo,
  serializeSip,
  SipParseError,
  sipFrameLength,
  type SipMessage,
} from "./message.ts";

const T1 = 500;
const T2 = 4000;
const TIMER_H = 64 * T1;

/** The methods this UAS serves (the Allow header). */
const ALLOW = "INVITE, ACK, BYE, CANCEL, OPTIONS";
/** SIP methods registered with IANA that a UAS may be sent (RFC 3261 and its extensions). */
const KNOWN_METHODS: ReadonlySet<string> = new Set([
  "INFO",
  "MESSAGE",
  "NOTIFY",
  "PRACK",
  "PUBLISH",
  "REFER",
  "REGISTER",
  "SUBSCRIBE",
  "UPDATE",
]);
/** Transactions remembered at once; more requests get 503 (a flood cannot grow memory). */
const MAX_TRANSACTIONS = 20000;

/** Where a request came from and how to answer it. */
export interface SipPeer {
  readonly transport: "udp" | "tcp";
  readonly address: string;
  readonly port: number;
  send(bytes: Uint8Array): void;
}

/** What the server does with each request; the UAS handles transactions around it. */
export interface SipHandlers {
  /** Whether a peer may use the port at all (403 otherwise). */
  allowed(address: string): boolean;
  /** A new INVITE or re-INVITE: the final response (the UAS has sent 100 Trying). */
  invite(request: SipMessage, peer: SipPeer, cancelled: AbortSignal): Promise<SipMessage>;
  /** The ACK of a 2xx arrived. */
  ack(request: SipMessage): void;
  /** The ACK of a 2xx never came (timer H): the dialog is dead. */
  ackTimeout(callId: string): void;
  bye(request: SipMessage): SipMessage;
  options(request: SipMessage): SipMessage;
  /** A message that could not be parsed (counted). */
  malformed?(error: SipParseError): void;
}

interface Transaction {
  response: Uint8Array | undefined;
  readonly cancel: AbortController;
  timer?: ReturnType<typeof setTimeout>;
  readonly expires: ReturnType<typeof setTimeout>;
}

/** See the file comment. */
export class SipUas {
  private udp: Socket | undefined;
  private tcp: Server | undefined;
  private readonly transactions = new Map<string, Transaction>();
  /** 2xx responses to INVITE awaiting their ACK, by Call-ID + CSeq number. */
  private readonly unacked = new Map<
    string,
    { timer: ReturnType<typeof setTimeout>; give: ReturnType<typeof setTimeout> }
  >();
  private readonly connections = new Set<TcpSocket>();
  private closed = false;

  constructor(
    private readonly handlers: SipHandlers,
    private readonly guard?: ConnectionGuard,
  ) {}

  /**
   * Binds UDP then TCP on the same port (port 0: UDP's free port is reused for TCP); resolves the
   * port. With port 0 the TCP side of the port the OS gave UDP may be taken by someone else: then
   * another free port is tried (a few times) instead of failing start-up.
   */
  async listen(host: string, port: number): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.bindBoth(host, port);
      } catch (error) {
        const taken = (error as { code?: string }).code === "EADDRINUSE";
        if (port !== 0 || !taken || attempt >= 5) throw error;
      }
    }
  }

  private async bindBoth(host: string, port: number): Promise<number> {
    const udp = createSocket({ type: host.includes(":") ? "udp6" : "udp4" });
    await new Promise<void>((resolve, reject) => {
      udp.once("error", reject);
      udp.bind(port, host, () => resolve());
    });
    udp.on("error", () => {});
    this.udp = udp;
    const bound = udp.address().port;
    udp.on("message", (bytes, from) => {
      const peer: SipPeer = {
        transport: "udp",
        address: from.address,
        port: from.port,
        send: (out) => this.sendUdp(out, from.port, from.address),
      };
      this.receive(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), peer);
    });
    const tcp = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      tcp.once("error", reject);
      tcp.listen(bound, host, () => resolve());
    }).catch((error) => {
      udp.close();
      throw error;
    });
    this.tcp = tcp;
    return bound;
  }

  /** Sends a request of our own (BYE) to a peer over UDP, fire and forget (two tries). */
  sendRequest(address: string, port: number, message: SipMessage): void {
    const bytes = serializeSip(message);
    this.sendUdp(bytes, port, address);
    setTimeout(() => this.sendUdp(bytes, port, address), T1).unref?.();
  }

  /** Sends a datagram; a no-op once closed (a retransmission timer may outlive the socket). */
  private sendUdp(bytes: Uint8Array, port: number, address: string): void {
    if (this.closed || !this.udp) return;
    try {
      this.udp.send(bytes, port, address);
    } catch {
      // The socket closed between the check and the send: nothing to deliver any more.
    }
  }

  /** The UDP socket's local port. */
  get port(): number {
    return this.udp?.address().port ?? 0;
  }

  /** Closes both sockets, open TCP connections and every timer. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.transactions.values()) {
      clearTimeout(t.timer);
      clearTimeout(t.expires);
    }
    this.transactions.clear();
    for (const u of this.unacked.values()) {
      clearTimeout(u.timer);
      clearTimeout(u.give);
    }
    this.unacked.clear();
    for (const socket of this.connections) socket.destroy();
    this.guard?.close();
    this.udp?.close();
    await new Promise<void>((resolve) => (this.tcp ? this.tcp.close(() => resolve()) : resolve()));
  }

  private accept(socket: TcpSocket): void {
    socket.on("error", () => socket.destroy());
    const peer: SipPeer = {
      transport: "tcp",
      address: socket.remoteAddress ?? "",
      port: socket.remotePort ?? 0,
      send: (out) => void (socket.writable && socket.write(out)),
    };
    if (!this.handlers.allowed(peer.address)) {
      if (this.guard) this.guard.refuse(socket, "network");
      else socket.destroy();
      return;
    }
    if (this.guard && !this.guard.accept(socket)) return;
    this.connections.add(socket);
    socket.on("close", () => this.connections.delete(socket));
    // An identified connection that goes quiet this long is closed too (RFC 5626 keep-alives
    // count as traffic).
    socket.setTimeout(5 * 60_000, () => socket.destroy());
    let buffer = new Uint8Array(0);
    socket.on("data", (chunk: Buffer) => {
      const joined = new Uint8Array(buffer.length + chunk.length);
      joined.set(buffer);
      joined.set(chunk, buffer.length);
      buffer = joined;
      try {
        for (;;) {
          // Keep-alive CRLFs between messages (RFC 5626 §3.5.1) are skipped.
          let skip = 0;
          while (skip < buffer.length && (buffer[skip] === 13 || buffer[skip] === 10)) skip++;
          if (skip > 0) buffer = buffer.slice(skip);
          const length = sipFrameLength(buffer);
          if (length === 0) break;
          const message = buffer.slice(0, length);
          buffer = buffer.slice(length);
          // Only a message that parses identifies the connection: framed garbage does not.
          if (this.receive(message, peer)) this.guard?.identify(socket);
        }
      } catch (error) {
        // A stream whose framing is lost cannot be resynchronised: answer if possible, then close.
        if (error instanceof SipParseError) this.handlers.malformed?.(error);
        socket.end();
      }
    });
  }

  /** Handles one message; false when it could not be parsed. */
  private receive(bytes: Uint8Array, peer: SipPeer): boolean {
    let request: SipMessage;
    try {
      request = parseSip(bytes);
    } catch (error) {
      if (!(error instanceof SipParseError)) throw error;
      this.handlers.malformed?.(error);
      const partial = error.partial;
      // A response needs the headers it copies; without them the message is discarded (§16.3).
      if (partial?.method && partial.method !== "ACK" && hasDialogHeaders(partial)) {
        peer.send(serializeSip(responseTo(partial, error.status, { reason: error.message })));
      }
      return false;
    }
    this.handle(request, peer);
    return true;
  }

  private handle(request: SipMessage, peer: SipPeer): void {
    if (request.method === undefined) return; // responses to our BYE need no action
    if (!this.handlers.allowed(peer.address)) {
      if (request.method !== "ACK") peer.send(serializeSip(responseTo(request, 403, { reason: "Forbidden" })));
      return;
    }
    const branch = headerParam(header(request, "via"), "branch") ?? "";
    const key = (method: string) => `${branch}|${header(request, "via")!.split(";")[0]}|${method}`;
    if (request.method === "ACK") {
      const ackKey = `${header(request, "call-id")}|${header(request, "cseq")!.split(" ")[0]}`;
      const waiting = this.unacked.get(ackKey);
      if (waiting) {
        clearTimeout(waiting.timer);
        clearTimeout(waiting.give);
        this.unacked.delete(ackKey);
        this.handlers.ack(request);
      }
      // The ACK of a non-2xx ends that INVITE transaction's retransmissions.
      const invite = this.transactions.get(key("INVITE"));
      if (invite) clearTimeout(invite.timer);
      return;
    }
    const existing = this.transactions.get(key(request.method));
    if (existing) {
      // A retransmission: the same response again (nothing yet means processing goes on).
      if (existing.response) peer.send(existing.response);
      return;
    }
    if (this.transactions.size >= MAX_TRANSACTIONS) {
      peer.send(serializeSip(responseTo(request, 503, { extra: [["retry-after", "5"]] })));
      return;
    }
    const transaction: Transaction = {
      response: undefined,
      cancel: new AbortController(),
      expires: setTimeout(() => this.forget(key(request.method!)), TIMER_H + 5000),
    };
    this.transactions.set(key(request.method), transaction);
    const reply = (response: SipMessage) => {
      const bytes = serializeSip(response);
      transaction.response = bytes;
      peer.send(bytes);
      return bytes;
    };
    switch (request.method) {
      case "INVITE":
        reply(responseTo(request, 100));
        void this.handlers.invite(request, peer, transaction.cancel.signal).then(
          (response) => this.finalToInvite(request, peer, transaction, reply(response), response.status!),
          () => reply(responseTo(request, 500)),
        );
        return;
      case "CANCEL": {
        const invite = this.transactions.get(key("INVITE"));
        if (!invite) return void reply(responseTo(request, 481));
        reply(responseTo(request, 200));
        invite.cancel.abort();
        return;
      }
      case "BYE":
        return void reply(this.handlers.bye(request));
      case "OPTIONS":
        return void reply(this.handlers.options(request));
      default:
        // RFC 3261 §8.2.1 and §21.5.2: a method SIP defines but Sawt does not serve is 405 with
        // Allow; a method it does not recognise at all is 501.
        reply(
          KNOWN_METHODS.has(request.method)
            ? responseTo(request, 405, { extra: [["allow", ALLOW]] })
            : responseTo(request, 501, { extra: [["allow", ALLOW]] }),
        );
    }
  }

  private finalToInvite(
    request: SipMessage,
    peer: SipPeer,
    transaction: Transaction,
    bytes: Uint8Array,
    status: number,
  ): void {
    const callId = header(request, "call-id")!;
    const retransmit = (interval: number) => {
      transaction.timer = setTimeout(() => {
        peer.send(bytes);
        retransmit(Math.min(interval * 2, T2));
      }, interval);
    };
    if (status >= 200 && status < 300) {
      const ackKey = `${callId}|${header(request, "cseq")!.split(" ")[0]}`;
      const entry = {
        timer: setTimeout(() => {}, 0),
        give: setTimeout(() => {
          clearTimeout(entry.timer);
          this.unacked.delete(ackKey);
          this.handlers.ackTimeout(callId);
        }, TIMER_H),
      };
      if (peer.transport === "udp") {
        const again = (interval: number) => {
          entry.timer = setTimeout(() => {
            peer.send(bytes);
            again(Math.min(interval * 2, T2));
          }, interval);
        };
        again(T1);
      }
      this.unacked.set(ackKey, entry);
    } else if (peer.transport === "udp") {
      retransmit(T1);
      setTimeout(() => clearTimeout(transaction.timer), TIMER_H);
    }
  }

  private forget(key: string): void {
    const t = this.transactions.get(key);
    if (t) clearTimeout(t.timer);
    this.transactions.delete(key);
  }
}

function hasDialogHeaders(message: SipMessage): boolean {
  return ["via", "from", "to", "call-id", "cseq"].every((name) => message.headers.get(name)?.[0]);
}
