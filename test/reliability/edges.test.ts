/**
 * Protocol edges found by the issue #16 attack run, each pinned by a test that failed before its
 * fix: the method/path errors must not depend on the Host header; WebSocket routes answer plain
 * requests with 426 (GET) or 405 listing HTTP methods, failed handshakes with the standard 400;
 * the multipart part-header cap holds when the whole header arrives in one chunk; TTS input with
 * bidi controls or lone surrogates is refused with the D7 detail.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { createHttpApp, type FeaturePlugin } from "../../src/app/http-app.ts";
import { httpPlugins } from "../../src/app/http-plugins.ts";
import { readMultipart } from "../../src/http/multipart.ts";
import { INVALID_HANDSHAKE, UPGRADE_REQUIRED } from "../../src/http/ws-guard.ts";
import { Detail } from "../../src/errors/taxonomy.ts";
import { isBlockedContent } from "../../src/tts/frontend/blocked.ts";
import { call, expectStandard, postJson, startUnwired, type UnwiredApp } from "../rest/support.ts";
import { rawHttp, type RawReply } from "./support.ts";

let app: UnwiredApp;
let port: number;
let key: string;

beforeAll(() => {
  app = startUnwired();
  port = Number(new URL(app.baseUrl).port);
  key = app.ctx.keys.create({ name: "edges", rpm: 100_000 }).key;
});
afterAll(() => app?.stop());

function expectStandardRaw(reply: RawReply, status: number, detail: string): void {
  expect(reply.status).toBe(status);
  expect(reply.headers.get("content-type")).toStartWith("application/json");
  expect(reply.headers.get("x-request-id")).toBeTruthy();
  expect(JSON.parse(reply.body)).toEqual({ error: "http_error", detail, code: `HTTP_${status}` });
}

describe("path resolution", () => {
  const cases: [string, string, string][] = [
    ["POST", "/health", "GET, HEAD"],
    ["GET", "/v1/tts/audio/speech", "POST"],
    ["DELETE", "/v1/asr/transcribe", "POST"],
  ];
  for (const host of ["tts", "asr", "x", "sawt.example.internal:8080"]) {
    test.each(cases)(`does answer %s %s with 405 and Allow when the Host is ${host}`, async (method, path, allow) => {
      const reply = await rawHttp(port, `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\n\r\n`);
      expectStandardRaw(reply, 405, "Method Not Allowed");
      expect(reply.headers.get("allow")).toBe(allow);
    });
  }

  test("does answer 404 for an unknown path when the Host is short", async () => {
    expectStandardRaw(await rawHttp(port, "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n"), 404, "Not Found");
  });
});

describe("WebSocket route edges", () => {
  test("does answer a plain GET on /v1/tts/ws with 426, the standard body and Upgrade: websocket", async () => {
    const reply = await call(`${app.baseUrl}/v1/tts/ws`, { headers: { "X-API-Key": key } });
    expectStandard(reply, 426, UPGRADE_REQUIRED);
    expect(reply.header("upgrade")).toBe("websocket");
    expect(reply.header("allow")).toBeNull();
  });

  test.each(["POST", "PUT", "DELETE"])(
    "does answer %s on /v1/tts/ws with 405 and Allow: GET (no WS)",
    async (method) => {
      const reply = await call(`${app.baseUrl}/v1/tts/ws`, { method, headers: { "X-API-Key": key } });
      expectStandard(reply, 405, "Method Not Allowed");
      expect(reply.header("allow")).toBe("GET");
    },
  );

  const broken: [string, string][] = [
    ["no key", "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"],
    [
      "a short key",
      "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: abc\r\n",
    ],
    [
      "version 8",
      "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 8\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n",
    ],
    [
      "no Connection: Upgrade",
      "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n",
    ],
  ];
  test.each(broken)("does answer a handshake with %s with the standard 400", async (_what, headers) => {
    const reply = await rawHttp(
      port,
      `GET /v1/tts/ws HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${key}\r\n${headers}\r\n`,
    );
    expectStandardRaw(reply, 400, INVALID_HANDSHAKE);
  });

  test("does refuse a broken handshake with the standard 400 on a WS route whose plugin has no guard", async () => {
    const bare: FeaturePlugin = () => new Elysia({ name: "bare-ws" }).ws("/test/ws", { message: () => undefined });
    const server = createHttpApp(app.ctx, [...httpPlugins, bare]).listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const reply = await rawHttp(
        server.server!.port!,
        "GET /test/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\n",
      );
      expectStandardRaw(reply, 400, INVALID_HANDSHAKE);
      const plain = await rawHttp(server.server!.port!, "GET /test/ws HTTP/1.1\r\nHost: x\r\n\r\n");
      expectStandardRaw(plain, 426, UPGRADE_REQUIRED);
    } finally {
      await server.stop(true);
    }
  });

  test("does still upgrade a valid handshake", async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/tts/ws`, {
      headers: { "X-API-Key": key },
    } as unknown as string[]);
    const opened = await new Promise<boolean>((resolve) => {
      ws.onopen = () => resolve(true);
      ws.onerror = () => resolve(false);
    });
    expect(opened).toBe(true);
    ws.close();
  });
});

describe("multipart part headers", () => {
  const boundary = "b0undary";
  const body = (headerBytes: number, chunked: boolean): ReadableStream<Uint8Array> => {
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nX-Pad: ${"p".repeat(headerBytes)}\r\n\r\n`;
    const bytes = new TextEncoder().encode(`${head}data\r\n--${boundary}--\r\n`);
    const step = chunked ? 1024 : bytes.length;
    let at = 0;
    return new ReadableStream({
      pull(controller) {
        if (at >= bytes.length) return controller.close();
        controller.enqueue(bytes.subarray(at, at + step));
        at += step;
      },
    });
  };
  const read = (stream: ReadableStream<Uint8Array>) =>
    readMultipart(stream, boundary, () => ({ write: () => undefined, end: () => undefined }));

  test.each([true, false])("does refuse a 20 KB part header (arriving in 1 KB chunks: %p)", async (chunked) => {
    await expect(read(body(20 * 1024, chunked))).rejects.toThrow("Malformed multipart body: part headers too long");
  });

  test("does accept a part header under the cap in one chunk", async () => {
    await read(body(8 * 1024, false));
  });
});

describe("bidi controls and lone surrogates in TTS input", () => {
  const refused: [string, string][] = [
    ["U+202E right-to-left override", "ادفع \u202E0001\u202C ريال"],
    ["U+202A left-to-right embedding", "a\u202Ab"],
    ["U+2066 left-to-right isolate", "a\u2066b\u2069"],
    ["a lone high surrogate", "مرحبا \uD800"],
    ["a lone low surrogate", "\uDC00 hello"],
  ];
  test.each(refused)("does refuse %s with the D7 detail", async (_what, input) => {
    expect(isBlockedContent(input)).toBe(true);
    const reply = await postJson(`${app.baseUrl}/v1/tts/audio/speech`, { input }, { "X-API-Key": key });
    expectStandard(reply, 400, Detail.invalidContent);
  });

  test.each([
    ["an emoji (a surrogate pair)", "شكرا 😀"],
    ["right-to-left and left-to-right marks", "رقم\u200F 123 \u200Eabc"],
    ["the Arabic letter mark", "\u061Cمرحبا"],
  ])("does accept %s", (_what, input) => {
    expect(isBlockedContent(input)).toBe(false);
  });
});
