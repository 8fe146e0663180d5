/**
 * The MRCPv2 control listener (RFC 6787 §4.2): one TCP port for every session's channels. The
 * client connects (a=setup:active, we are passive) and names a channel in each request's
 * Channel-Identifier; the first request binds that channel to its connection, so events go back
 * on it. Requests the kit answers itself: SET-PARAMS and GET-PARAMS, and every error (missing or
 * unknown channel 406/405, unknown method 401, out-of-order request id 410, framing errors); the
 * rest go to the channel. A bad message is answered, never a reason to drop the connection.
 *
 * Connections are bounded by the door's {@link ConnectionGuard} (`mrcp.max_connections`,
 * `mrcp.identify_timeout_s`): a connection identifies itself with its first request naming a
 * channel of an open session, and one whose channels have all ended counts as new again. Channels
 * still waiting for their connection are the connections the guard keeps past the timeout.
 */
import { createServer, type Server, type Socket } from "node:net";
import type { ConnectionGuard } from "../../edge/connection-guard.ts";
import { MrcpReader, MrcpStatus, serializeMrcp, type MrcpRequest, type RequestState } from "./message.ts";
import type { MrcpChannel, MrcpChannelIo, MrcpResource, MrcpSessionView } from "../resource.ts";

/** Methods every resource takes from the kit. */
const KIT_METHODS = new Set(["SET-PARAMS", "GET-PARAMS"]);

/** One registered channel. */
interface ChannelEntry {
  readonly resource: MrcpResource;
  readonly io: MrcpChannelIo;
  channel: MrcpChannel | undefined;
  socket: Socket | undefined;
  lastRequestId: number;
  /** Called when the channel's connection closes (the IVR vanished). */
  readonly lost: () => void;
}

/** See the file comment. */
export class MrcpControl {
  private server: Server | undefined;
  private readonly channels = new Map<string, ChannelEntry>();
  private readonly sockets = new Set<Socket>();
  private guard: ConnectionGuard | undefined;

  constructor(
    private readonly allowed: (address: string) => boolean,
    private readonly onMessage: () => void,
  ) {}

  /** Channels whose connection has not come yet (the guard keeps that many quiet connections). */
  get awaitedChannels(): number {
    let count = 0;
    for (const entry of this.channels.values()) if (!entry.socket) count++;
    return count;
  }

  /** Bounds the connections with `guard` (before {@link listen}). */
  guardWith(guard: ConnectionGuard): void {
    this.guard = guard;
  }

  /** Binds the port; resolves the bound port. */
  async listen(host: string, port: number): Promise<number> {
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    const address = server.address();
    return typeof address === "object" && address ? address.port : port;
  }

  /** Registers a channel; `open` builds it from its io. */
  add(
    id: string,
    session: MrcpSessionView,
    resource: MrcpResource,
    open: (io: MrcpChannelIo) => MrcpChannel,
    lost: () => void,
  ): void {
    const entry: ChannelEntry = {
      resource,
      io: undefined as never,
      channel: undefined,
      socket: undefined,
      lastRequestId: 0,
      lost,
    };
    const write = (bytes: Uint8Array) => void (entry.socket?.writable && entry.socket.write(bytes));
    const io: MrcpChannelIo = {
      id,
      session,
      params: new Map(),
      respond: (request, status, state, headers = [], body = "") =>
        write(
          serializeMrcp(
            { response: { requestId: request.requestId, status, state } },
            [["Channel-Identifier", id], ...headers],
            body,
          ),
        ),
      event: (name, requestId, state, headers = [], body = "") =>
        write(serializeMrcp({ event: { name, requestId, state } }, [["Channel-Identifier", id], ...headers], body)),
    };
    (entry as { io: MrcpChannelIo }).io = io;
    this.channels.set(id, entry);
    entry.channel = open(io);
  }

  /** Removes a channel (its session ended); its connection stays for other channels. */
  remove(id: string): void {
    const entry = this.channels.get(id);
    if (!entry) return;
    this.channels.delete(id);
    entry.channel?.close();
    const socket = entry.socket;
    if (socket && ![...this.channels.values()].some((other) => other.socket === socket)) this.guard?.unidentify(socket);
  }

  /** Closes the port and every connection. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.guard?.close();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(socket: Socket): void {
    if (!this.allowed(socket.remoteAddress ?? "")) {
      if (this.guard) this.guard.refuse(socket, "network");
      else socket.destroy();
      return;
    }
    if (this.guard && !this.guard.accept(socket)) return;
    this.sockets.add(socket);
    const reader = new MrcpReader();
    const reply = (requestId: number, status: number, headers: [string, string][] = []) =>
      socket.writable && socket.write(serializeMrcp({ response: { requestId, status, state: "COMPLETE" } }, headers));
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      this.sockets.delete(socket);
      for (const entry of [...this.channels.values()]) if (entry.socket === socket) entry.lost();
    });
    socket.on("data", (chunk: Buffer) => {
      for (const frame of reader.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))) {
        this.onMessage();
        if (frame.kind === "error") {
          reply(frame.requestId, frame.status, [["Completion-Reason", frame.reason]]);
          continue;
        }
        const { request } = frame;
        const id = request.headers.get("channel-identifier");
        if (!id) {
          reply(request.requestId, MrcpStatus.MANDATORY_MISSING, [["Completion-Reason", "Channel-Identifier missing"]]);
          continue;
        }
        const entry = this.channels.get(id);
        if (!entry || (entry.socket && entry.socket !== socket)) {
          reply(request.requestId, MrcpStatus.NOT_ALLOCATED, [["Channel-Identifier", id]]);
          continue;
        }
        entry.socket ??= socket;
        this.guard?.identify(socket);
        entry.io.session.touch();
        this.dispatch(entry, request);
      }
    });
  }

  private dispatch(entry: ChannelEntry, request: MrcpRequest): void {
    const { io, resource } = entry;
    if (request.requestId <= entry.lastRequestId) {
      io.respond(request, MrcpStatus.OUT_OF_ORDER, "COMPLETE");
      return;
    }
    entry.lastRequestId = request.requestId;
    if (request.method === "SET-PARAMS") return this.setParams(entry, request);
    if (request.method === "GET-PARAMS") return this.getParams(entry, request);
    if (!KIT_METHODS.has(request.method) && !resourceMethods(resource).has(request.method)) {
      io.respond(request, MrcpStatus.METHOD_NOT_ALLOWED, "COMPLETE");
      return;
    }
    try {
      entry.channel?.request(request);
    } catch {
      io.respond(request, MrcpStatus.INTERNAL, "COMPLETE");
    }
  }

  private setParams(entry: ChannelEntry, request: MrcpRequest): void {
    const unsupported: string[] = [];
    for (const [name, value] of request.headers) {
      if (name === "channel-identifier" || name.startsWith("content-")) continue;
      if (entry.resource.parameters.has(name)) entry.io.params.set(name, value);
      else unsupported.push(name);
    }
    const status = unsupported.length > 0 ? MrcpStatus.UNSUPPORTED_HEADER : MrcpStatus.SUCCESS;
    entry.io.respond(
      request,
      status,
      "COMPLETE",
      unsupported.map((name) => [name, ""] as const),
    );
  }

  private getParams(entry: ChannelEntry, request: MrcpRequest): void {
    const asked = [...request.headers.keys()].filter((n) => n !== "channel-identifier" && !n.startsWith("content-"));
    const names = asked.length > 0 ? asked : [...entry.io.params.keys()];
    const headers = names.filter((n) => entry.io.params.has(n)).map((n) => [n, entry.io.params.get(n)!] as const);
    entry.io.respond(request, MrcpStatus.SUCCESS, "COMPLETE", headers);
  }
}

const METHODS: Record<MrcpResource["name"], ReadonlySet<string>> = {
  speechsynth: new Set(["SPEAK", "STOP", "PAUSE", "RESUME", "BARGE-IN-OCCURRED", "CONTROL", "DEFINE-LEXICON"]),
  speechrecog: new Set(["DEFINE-GRAMMAR", "RECOGNIZE", "INTERPRET", "GET-RESULT", "START-INPUT-TIMERS", "STOP"]),
};

function resourceMethods(resource: MrcpResource): ReadonlySet<string> {
  return METHODS[resource.name];
}

/** A response state as the RFC names it (re-exported for doors). */
export type { RequestState };
