/**
 * The AudioSocket door's TCP listener (`calls.audiosocket_port` on `server.host`; 0 picks a free
 * port, reported in the `listening` line as `"audiosocket":P`): a connection from outside
 * `calls.allowed_networks` or over the door's connection cap is closed at once (Asterisk does not
 * retry a refused connection); every other one is an {@link AudioSocketConnection}.
 */
import { createServer, type Server, type Socket } from "node:net";
import type { AppContext } from "../../core/context.ts";
import { callDoorGuard } from "../connections.ts";
import type { CallService } from "../service.ts";
import { AudioSocketConnection } from "./connection.ts";

/** A bound AudioSocket listener. */
export interface AudioSocketServer {
  readonly port: number;
  /** Connections open now. */
  readonly connections: number;
  /** Stops accepting; open calls end with the call service. */
  close(): Promise<void>;
}

/** Binds the AudioSocket port and serves calls into `calls`. */
export async function startAudioSocketServer(ctx: AppContext, calls: CallService): Promise<AudioSocketServer> {
  const guard = callDoorGuard(ctx, "audiosocket");
  const sockets = new Set<Socket>();
  const server: Server = createServer({ noDelay: true }, (socket) => {
    const address = (socket.remoteAddress ?? "").replace(/^::ffff:/, "");
    if (!calls.peers.allowed(address)) return guard.refuse(socket, "network");
    if (!guard.hasRoom()) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    new AudioSocketConnection(ctx, calls, guard, socket, address);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(ctx.config.calls.audiosocket_port, ctx.config.server.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = server.address();
  const port = typeof bound === "object" && bound !== null ? bound.port : 0;
  return {
    port,
    get connections() {
      return guard.open;
    },
    close() {
      guard.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Calls ended with the call service; what is left never identified itself.
      for (const socket of sockets) socket.destroy();
      return closed;
    },
  };
}
