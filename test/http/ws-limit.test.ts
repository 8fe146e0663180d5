/**
 * Issue 39: every listening door bounds its connections. The WebSocket doors share one cap,
 * `server.max_websockets` (the TTS WebSocket had none: a key could hold any number of idle
 * sockets): the upgrade past it gets the REST 503 busy body with Retry-After, a closed socket
 * makes room again, and `sawt_ws_connections{door}` counts them. Before the upgrade a connection
 * has not identified itself (the key comes with the upgrade request): the HTTP port closes one
 * that sends nothing within Bun's idle timeout (10 s).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { parseMetrics } from "../support/in-process.ts";
import { startUnwired, type UnwiredApp } from "../rest/support.ts";

let app: UnwiredApp;
let key: string;

beforeAll(() => {
  app = startUnwired({ SAWT_MAX_WEBSOCKETS: "2", SAWT_RUNTIME_METRICS_OPEN: "true" });
  key = app.ctx.keys.create({ name: "ws", rpm: 1000 }).key;
});

afterAll(async () => {
  await app?.stop();
});

function openSocket(): Promise<WebSocket> {
  const ws = new WebSocket(`${app.baseUrl.replace(/^http/, "ws")}/v1/tts/ws`, {
    headers: { "x-api-key": key },
  } as unknown as string[]);
  return new Promise((resolve, reject) => {
    ws.onopen = () => resolve(ws);
    ws.onerror = () => reject(new Error("upgrade refused"));
  });
}

/** A hand-written upgrade: the status line, headers and body of the answer. */
async function rawUpgrade(): Promise<{ status: number; head: string; body: string }> {
  const port = Number(new URL(app.baseUrl).port);
  const request =
    "GET /v1/tts/ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
    `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nX-API-Key: ${key}\r\n\r\n`;
  const socket = connect(port, "127.0.0.1");
  let text = "";
  socket.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  socket.on("error", () => {});
  socket.write(request);
  const deadline = Date.now() + 5000;
  const complete = () => {
    const end = text.indexOf("\r\n\r\n");
    if (end < 0) return false;
    if (text.startsWith("HTTP/1.1 101")) return true;
    const length = Number(/content-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
    return Buffer.byteLength(text.slice(end + 4)) >= length;
  };
  while (!complete() && Date.now() < deadline) await Bun.sleep(10);
  socket.destroy();
  const end = text.indexOf("\r\n\r\n");
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0),
    head: text.slice(0, end),
    body: text.slice(end + 4),
  };
}

async function metrics(): Promise<Map<string, number>> {
  return parseMetrics(await (await fetch(`${app.baseUrl}/metrics`)).text());
}

describe("the WebSocket doors' connection cap", () => {
  test("does refuse an upgrade over server.max_websockets with 503 and Retry-After, and take one once a socket closes", async () => {
    const first = await openSocket();
    const second = await openSocket();
    const open = await metrics();
    expect(open.get('sawt_ws_connections{door="tts-ws"}')).toBe(2);
    expect(open.get("sawt_ws_connections_max")).toBe(2);
    const refused = await rawUpgrade();
    expect(refused.status).toBe(503);
    expect(refused.head).toMatch(/retry-after: \d+/i);
    expect(JSON.parse(refused.body)).toMatchObject({ error: "http_error", code: "HTTP_503" });
    expect((await metrics()).get('sawt_ws_connections_refused_total{door="tts-ws"}')).toBe(1);
    first.close();
    const deadline = Date.now() + 3000;
    while ((await metrics()).get('sawt_ws_connections{door="tts-ws"}') !== 1 && Date.now() < deadline)
      await Bun.sleep(20);
    expect((await rawUpgrade()).status).toBe(101);
    second.close();
  });

  test("does close a connection to the HTTP port that sends nothing, within Bun's idle timeout", async () => {
    const socket = connect(Number(new URL(app.baseUrl).port), "127.0.0.1");
    socket.on("error", () => {});
    const opened = performance.now();
    const closedAfter = await new Promise<number>((resolve) =>
      socket.on("close", () => resolve(performance.now() - opened)),
    );
    expect(closedAfter).toBeLessThan(15_000);
  }, 30_000);
});
