/**
 * The one way a feature mounts a WebSocket door (issue 31). A door says what it speaks (paths,
 * frame and idle limits, its error event, how a connection is made); this helper does what every
 * door does the same way:
 *
 * - the upgrade: the key is verified before the 101 (a refused client gets the REST 401 body, or
 *   the door's own {@link ProtocolErrorShape}) and the key and the upgrade's request id reach `open`
 *   through Elysia's `resolve`, so a connection is verified exactly once. The handshake itself (./ws-guard.ts) is checked by the app for every
 *   WebSocket path before routing, so a broken handshake gets the standard 400 before the key
 *   is even looked at;
 * - one connection per socket, fed every message and abandoned when the socket closes; the
 *   sockets of every door together are capped (./ws-limit.ts, `server.max_websockets`);
 * - the standard error event (the door's wire shape around the REST error body) and the close
 *   code for an error ({@link closeCodeFor}), also when a connection is refused at `open`.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../core/context.ts";
import { presentedKey, verify } from "../edge/auth.ts";
import { errorBody } from "../edge/error-body.ts";
import { requestIdFrom } from "../edge/request-id.ts";
import { type AppError, toAppError } from "../errors/taxonomy.ts";
import { answerErrorsAs, type ProtocolErrorShape } from "./errors.ts";
import type { ApiKeyRecord } from "../store/keys.ts";
import { checkWebSocketRoom, holdWebSocket, registerWebSocketLimit } from "./ws-limit.ts";

/** What the upgrade established, handed to the door's `connect`. */
export interface Upgrade {
  /** The key verified at the upgrade (rate limits are the door's, per call). */
  readonly key: ApiKeyRecord;
  /** The upgrade request's id (its X-Request-ID): every call on the connection logs under it. */
  readonly requestId: string;
  /** The upgrade request, for door-specific headers. */
  readonly request: Request;
}

/**
 * The upgrade of a door whose key may come in the first message instead (ElevenLabs'
 * `xi_api_key`): `key` is undefined until then, and the door verifies it (src/edge/auth.ts) before
 * anything else.
 */
export type OpenUpgrade = Omit<Upgrade, "key"> & { readonly key: ApiKeyRecord | undefined };

/** The socket as a door sees it. */
export interface DoorSocket {
  readonly id: string;
  /** Sends a text frame, or a binary frame for bytes. */
  send(data: string | Uint8Array): void;
  sendJson(body: Record<string, unknown>): void;
  /** Sends the door's error event for `thrown` and returns it as an AppError. */
  sendError(thrown: unknown): AppError;
  close(code: number, reason: string): void;
  /**
   * Closes with the door's {@link WebSocketDoor.closeFrame} for `error`, else {@link closeCodeFor}`(error)`
   * and the error's detail, or `reason` when there is none.
   */
  closeFor(error: AppError | undefined, reason: string): void;
}

/** One open socket's state, owned by the door. */
export interface DoorConnection {
  /** A client frame, as Elysia parsed it (JSON text as an object, binary as a Uint8Array). */
  receive(message: unknown): void | Promise<void>;
  /** The socket closed: stop what is in progress for it. */
  abandon(): void;
}

/** What a WebSocket door declares. */
export interface WebSocketDoor {
  /** The Elysia plugin's name. */
  readonly name: string;
  /** Every path the door answers on (aliases share one handler). */
  readonly paths: readonly string[];
  /** Largest client frame, in bytes. */
  readonly maxPayloadLength: number;
  /** Bun's idle timeout, in seconds. */
  readonly idleTimeout: number;
  /** Refuses the upgrade before the key is checked (a query the door requires, say). */
  readonly checkUpgrade?: (request: Request) => void;
  /** The key the client presented; X-API-Key or Bearer unless the door has more ways. */
  readonly presentedKey?: (headers: Headers) => string | undefined;
  /** Refused upgrades answered in the door's protocol's shape (default: the REST error body). */
  readonly errorShape?: ProtocolErrorShape;
  /** Elysia's `upgrade` option: headers for the 101. */
  readonly upgrade?: (context: { request: Request }) => unknown;
  /** The door's error event around an error (see {@link errorStatusBody}). */
  readonly errorEvent: (error: AppError, socket: DoorSocket) => Record<string, unknown>;
  /**
   * The close frame for an error in the door's protocol (Deepgram's codes and payloads,
   * ElevenLabs' 1008/1011), used by `closeFor`, so a connection refused at `open` closes as the
   * door's own failures do (default: {@link closeCodeFor} and the error's detail).
   */
  readonly closeFrame?: (error: AppError) => { code: number; reason: string };
  /** Opens a connection; a throw is answered with the error event and a close. */
  connect(socket: DoorSocket, upgrade: Upgrade): DoorConnection;
  /**
   * For a door whose protocol lets the key come in the first message: opens a connection for an
   * upgrade that presented none (the others go to {@link connect}).
   */
  readonly connectKeyLater?: (socket: DoorSocket, upgrade: OpenUpgrade) => DoorConnection;
}

/**
 * The WebSocket close code for the error that ended a connection: 1000 for a normal end, 1013
 * (try again later) for a 503, 1011 for a server failure, 1008 (policy) for what the client did
 * wrong or a deadline (504).
 */
export function closeCodeFor(error: AppError | undefined): number {
  if (!error) return 1000;
  if (error.status === 503) return 1013;
  if (error.status >= 500 && error.status !== 504) return 1011;
  return 1008;
}

/** The REST error body with its HTTP status, which every door's error event carries. */
export function errorStatusBody(error: AppError): Record<string, unknown> {
  return { status: error.status, ...errorBody(error) };
}

/** The Elysia socket as far as the helper uses it. */
interface ElysiaSocket {
  readonly id: string;
  send(data: string | Buffer): unknown;
  close(code?: number, reason?: string): unknown;
}

function doorSocket(ws: ElysiaSocket, door: WebSocketDoor): DoorSocket {
  const socket: DoorSocket = {
    id: ws.id,
    // Elysia's send JSON-encodes any object that is not a Buffer, a Uint8Array included.
    send: (data) =>
      void ws.send(typeof data === "string" ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength)),
    sendJson: (body) => void ws.send(JSON.stringify(body)),
    sendError(thrown) {
      const error = toAppError(thrown);
      socket.sendJson(door.errorEvent(error, socket));
      return error;
    },
    close: (code, reason) => void ws.close(code, reason),
    closeFor(error, reason) {
      const frame = error && door.closeFrame ? door.closeFrame(error) : undefined;
      if (frame) ws.close(frame.code, frame.reason);
      else ws.close(closeCodeFor(error), error ? error.detail.slice(0, 120) : reason);
    },
  };
  return socket;
}

/** The Elysia plugin serving `door` on each of its paths. */
export function webSocketRoutes(ctx: AppContext, door: WebSocketDoor) {
  const connections = new Map<string, DoorConnection>();
  const releases = new Map<string, () => void>();
  registerWebSocketLimit(ctx);
  const keyOf = door.presentedKey ?? presentedKey;
  const route = {
    maxPayloadLength: door.maxPayloadLength,
    idleTimeout: door.idleTimeout,
    upgrade: door.upgrade,
    open(ws: ElysiaSocket & { data: { upgrade: Upgrade | OpenUpgrade } }) {
      const socket = doorSocket(ws, door);
      const { upgrade } = ws.data;
      try {
        releases.set(ws.id, holdWebSocket(ctx, door.name));
        const connection =
          upgrade.key === undefined ? door.connectKeyLater!(socket, upgrade) : door.connect(socket, upgrade as Upgrade);
        connections.set(ws.id, connection);
      } catch (thrown) {
        const error = socket.sendError(thrown);
        socket.closeFor(error, "");
      }
    },
    message(ws: { id: string }, message: unknown) {
      return connections.get(ws.id)?.receive(message);
    },
    close(ws: { id: string }) {
      connections.get(ws.id)?.abandon();
      connections.delete(ws.id);
      releases.get(ws.id)?.();
      releases.delete(ws.id);
    },
  };
  const app = new Elysia({ name: door.name }).resolve(({ request, set }): { upgrade: Upgrade | OpenUpgrade } => {
    if (door.errorShape) answerErrorsAs(request, door.errorShape);
    door.checkUpgrade?.(request);
    const presented = keyOf(request.headers);
    // No key yet is let through only where the protocol sends it in the first message.
    const key = presented === undefined && door.connectKeyLater ? undefined : verify(ctx, presented);
    // After the key: an unauthenticated client learns nothing about the server's load.
    checkWebSocketRoom(ctx, door.name);
    const sent = set.headers["x-request-id"];
    return { upgrade: { key, requestId: typeof sent === "string" ? sent : requestIdFrom(request.headers), request } };
  });
  for (const path of door.paths) app.ws(path, route);
  return app;
}
