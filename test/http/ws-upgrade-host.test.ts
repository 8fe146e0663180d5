/**
 * A valid RFC 6455 upgrade succeeds on every WebSocket route whatever the Host header (issue 31):
 * short names such as `tts` (Kubernetes services, proxies), a name with a port and an IPv6
 * literal. The handshake is written by hand over a raw TCP socket, since fetch and WebSocket
 * clients pick the Host themselves.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { connect } from "node:net";
import { startUnwired, type UnwiredApp } from "../rest/support.ts";

/** RFC 6455 §1.3: the GUID the server appends to the client's key before hashing. */
const HANDSHAKE_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

interface UpgradeReply {
  readonly status: number;
  readonly headers: Headers;
}

/** Sends a hand-written upgrade request and reads the response head, then closes the socket. */
function upgrade(port: number, path: string, host: string, key: string, wsKey: string): Promise<UpgradeReply> {
  const request =
    `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
    `Sec-WebSocket-Key: ${wsKey}\r\nSec-WebSocket-Version: 13\r\nX-API-Key: ${key}\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    let received = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no response head for ${path} with Host ${host}`));
    }, 10_000);
    socket.on("connect", () => socket.write(request));
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
      const end = received.indexOf("\r\n\r\n");
      if (end < 0) return;
      clearTimeout(timer);
      socket.destroy();
      const [statusLine, ...lines] = received.slice(0, end).split("\r\n");
      const headers = new Headers();
      for (const line of lines) {
        const colon = line.indexOf(":");
        if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? "")?.[1]), headers });
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

let app: UnwiredApp;
let port: number;
let key: string;

beforeAll(() => {
  app = startUnwired();
  port = Number(new URL(app.baseUrl).port);
  key = app.ctx.keys.create({ name: "ws-host", rpm: 100_000 }).key;
});
afterAll(() => app?.stop());

describe("WebSocket upgrade behind any Host", () => {
  const routes = ["/v1/tts/ws", "/v1/realtime?intent=transcription", "/v1/asr/realtime", "/v1/asr/jambonz"];
  const hosts = ["tts", "x", "sawt", "sawt.example:8080", "[::1]:8080"];
  for (const route of routes) {
    test.each(hosts)(`does switch protocols on ${route} when the Host is %s`, async (host) => {
      const wsKey = randomBytes(16).toString("base64");
      const reply = await upgrade(port, route, host, key, wsKey);
      expect(reply.status).toBe(101);
      expect(reply.headers.get("upgrade")?.toLowerCase()).toBe("websocket");
      const accept = createHash("sha1")
        .update(wsKey + HANDSHAKE_GUID)
        .digest("base64");
      expect(reply.headers.get("sec-websocket-accept")).toBe(accept);
    });
    test(`does refuse the upgrade on ${route} with the REST 401 when the key is wrong behind Host x`, async () => {
      const reply = await upgrade(port, route, "x", "sk_wrong", randomBytes(16).toString("base64"));
      expect(reply.status).toBe(401);
      expect(reply.headers.get("content-type")).toStartWith("application/json");
      expect(reply.headers.get("sec-websocket-accept")).toBeNull();
    });
  }
});
