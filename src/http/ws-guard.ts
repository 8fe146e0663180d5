/**
 * The HTTP edges of every WebSocket route (issue #16). The app (src/app/http-app.ts) applies both
 * to every path that has a WebSocket route, so a door never calls them itself (doors mount
 * through ./ws-route.ts, which checks the key and runs the connection):
 *
 * - {@link assertWebSocketHandshake} before routing, on any request with an `Upgrade` header: an
 *   upgrade whose key exchange Bun would refuse gets the standard 400 body instead of Bun's
 *   `text/plain` "Expected a websocket connection", and gets it before the key is checked.
 * - {@link webSocketMiss} in the app's not-found path: a plain request on a WS path gets
 *   426 Upgrade Required (GET) or 405 with `Allow: GET` (any other method), never `Allow: WS`.
 */
import { AppError } from "../errors/taxonomy.ts";

/** The method Elysia lists WebSocket routes under in `app.routes` (not an HTTP method). */
export const WEBSOCKET_ROUTE_METHOD = "WS";

/** Detail of a refused handshake. */
export const INVALID_HANDSHAKE = "Invalid WebSocket handshake";

/** Detail of the 426. */
export const UPGRADE_REQUIRED = "Upgrade Required: this endpoint speaks WebSocket";

/** Headers the 426 carries (RFC 9110: a 426 must name the protocol to upgrade to). */
export const UPGRADE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  upgrade: "websocket",
  connection: "Upgrade",
});

const hasToken = (value: string | null, token: string) =>
  value !== null && value.split(",").some((part) => part.trim().toLowerCase() === token);

/**
 * True when the request asks to upgrade to WebSocket with a key exchange RFC 6455 §4.2.1 accepts:
 * GET, `Upgrade: websocket`, `Connection: Upgrade`, version 13, a key of 16 base64 bytes.
 */
export function isValidWebSocketHandshake(request: Request): boolean {
  const h = request.headers;
  const key = h.get("sec-websocket-key")?.trim() ?? "";
  return (
    request.method === "GET" &&
    hasToken(h.get("upgrade"), "websocket") &&
    hasToken(h.get("connection"), "upgrade") &&
    h.get("sec-websocket-version")?.trim() === "13" &&
    /^[A-Za-z0-9+/]{22}==$/.test(key)
  );
}

/** Throws the standard 400 unless the request is a valid WebSocket handshake. */
export function assertWebSocketHandshake(request: Request): void {
  if (!isValidWebSocketHandshake(request)) throw new AppError("bad_request", INVALID_HANDSHAKE);
}

/**
 * The answer to a request on a WebSocket path that reached no handler: 426 for a GET (it lacked
 * the upgrade), 405 `Allow: GET` otherwise. `httpMethods` are other HTTP routes on the same path.
 */
export function webSocketMiss(
  method: string,
  httpMethods: readonly string[],
): { error: AppError; headers: Record<string, string> } {
  if (method === "GET" || method === "HEAD") {
    return { error: new AppError("upgrade_required", UPGRADE_REQUIRED, { headers: UPGRADE_HEADERS }), headers: {} };
  }
  const allow = [...new Set(["GET", ...httpMethods])].join(", ");
  return { error: new AppError("method_not_allowed", "Method Not Allowed"), headers: { allow } };
}
