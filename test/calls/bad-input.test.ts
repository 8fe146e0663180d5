/**
 * Bad input on the call doors (issue 41, acceptance 5), against a real `sawt serve`: garbage,
 * oversized frames, audio before the UUID or MEDIA_START, a connection that never identifies
 * itself, a peer outside `calls.allowed_networks`, calls that vanish without a hangup on every
 * door, and commands for a call that ended — each answered by the contract (a closed socket with
 * a reason, a 4xx, an error event), with `/health` 200 throughout and, at the end, no session, slot,
 * connection or RTP port left.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSocket } from "node:dgram";
import { connect as tcpConnect } from "node:net";
import { buildRtp } from "../../src/media/rtp-packet.ts";
import { silence } from "../asr/support.ts";
import { connect } from "../asr/ws-client.ts";
import { until } from "../support/sawt.ts";
import { ChanWebsocketClient } from "./chan-websocket-client.ts";
import {
  audioSocketCall,
  AudioSocketPeer,
  callOpen,
  type CallServer,
  layoutFrame,
  newUuid,
  startCallServer,
  watchCall,
} from "./support.ts";

const LIMITS = {
  SAWT_CALLS_IDLE_TIMEOUT_S: "2",
  SAWT_CALLS_IDENTIFY_TIMEOUT_S: "1",
  SAWT_RUNTIME_METRICS_OPEN: "true",
};
let server: CallServer;
let outside: CallServer;
const health: number[] = [];
let polling = true;
let poller: Promise<void>;

beforeAll(async () => {
  [server, outside] = await Promise.all([
    startCallServer(LIMITS),
    startCallServer({ ...LIMITS, SAWT_CALLS_ALLOWED_NETWORKS: "10.0.0.0/8" }),
  ]);
  poller = (async () => {
    while (polling) {
      for (const s of [server, outside]) health.push((await fetch(`${s.sawt.baseUrl}/health`)).status);
      await Bun.sleep(100);
    }
  })();
});

afterAll(async () => {
  polling = false;
  await poller;
  await Promise.all([server?.stop(), outside?.stop()]);
});

/** Connects, writes `bytes`, and resolves with what came back before Sawt closed the connection. */
async function refused(port: number, bytes?: Uint8Array): Promise<Uint8Array> {
  const socket = tcpConnect({ host: "127.0.0.1", port });
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  if (bytes) socket.write(bytes);
  await closed;
  return Buffer.concat(chunks);
}

const HANGUP = Uint8Array.of(0, 0, 0);

describe("the AudioSocket port", () => {
  test("does close a connection that sends garbage, audio before the UUID, a bad UUID or an oversized frame", async () => {
    const port = server.audiosocket;
    expect(await refused(port, new TextEncoder().encode("GET / HTTP/1.1\r\n\r\n"))).toEqual(HANGUP);
    expect(await refused(port, layoutFrame(0x10, new Uint8Array(320)))).toEqual(HANGUP);
    expect(await refused(port, layoutFrame(0x01, new Uint8Array(5)))).toEqual(HANGUP);
    expect(await refused(port, Uint8Array.of(0x01, 0xff, 0xff))).toEqual(HANGUP);
  });

  test("does close a connection that never identifies itself", async () => {
    const started = performance.now();
    await refused(server.audiosocket);
    expect(performance.now() - started).toBeGreaterThan(900);
  });

  test("does close a connection from outside calls.allowed_networks at once", async () => {
    expect((await refused(outside.audiosocket)).length).toBe(0);
  });

  test("does end a call that vanishes without a hangup, and close its connection", async () => {
    const id = newUuid();
    const peer = await AudioSocketPeer.connect(server.audiosocket);
    peer.uuid(id);
    await peer.stream(silence(0.2, 8000), 8000);
    await callOpen(server, id);
    const app = await watchCall(server, id);
    // The peer goes quiet and never hangs up: the call is idle.
    expect(await app.next("call.ended")).toMatchObject({ reason: "idle" });
    await peer.closed;
  });
});

/** `sawt_calls_refused_total{door,reason}` now. */
async function refusals(door: string, reason: string): Promise<number> {
  const lines = (await (await fetch(`${server.sawt.baseUrl}/metrics`)).text()).split("\n");
  const line = lines.find((l) => l.startsWith(`sawt_calls_refused_total{door="${door}",reason="${reason}"}`));
  return line ? Number(line.split(" ").at(-1)) : 0;
}

describe("the refusal counts", () => {
  // Before: a silent connection counted twice (the cap's timer and the door's close both counted
  // it), and a protocol error on a call that was up not at all (ending the call closed the
  // connection first, and a closing connection's refusal was not counted).
  test("does count a silent connection once on each door, and a bad frame mid-call as protocol", async () => {
    const silent = [await refusals("audiosocket", "silent"), await refusals("chan_websocket", "silent")];
    await refused(server.audiosocket);
    const quiet = await ChanWebsocketClient.dial(server.sawt.baseUrl, { format: "ulaw", json: false, silent: true });
    await quiet.closed;
    expect([await refusals("audiosocket", "silent"), await refusals("chan_websocket", "silent")]).toEqual(
      silent.map((n) => n + 1),
    );
    const protocol = await refusals("audiosocket", "protocol");
    const { peer } = await audioSocketCall(server, 8000);
    peer.raw(layoutFrame(0x12, new Uint8Array(640)));
    await peer.closed;
    expect(await refusals("audiosocket", "protocol")).toBe(protocol + 1);
  });
});

describe("the chan_websocket route", () => {
  test("does refuse a peer outside calls.allowed_networks with 403", async () => {
    const asterisk = await ChanWebsocketClient.dial(outside.sawt.baseUrl, { format: "ulaw", json: false });
    expect(asterisk.ws.readyState).not.toBe(WebSocket.OPEN);
    const response = await fetch(`${outside.sawt.baseUrl}/v1/calls/asterisk`, {
      headers: {
        upgrade: "websocket",
        connection: "Upgrade",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        "sec-websocket-version": "13",
      },
    });
    expect(response.status).toBe(403);
  });

  test("does close media before MEDIA_START, a format Sawt does not take, and an oversized message", async () => {
    const early = await ChanWebsocketClient.dial(server.sawt.baseUrl, { format: "ulaw", json: false, silent: true });
    early.ws.send(new Uint8Array(160));
    expect(await early.closed).toMatchObject({ code: 1008, reason: "media before MEDIA_START" });
    const opus = await ChanWebsocketClient.dial(server.sawt.baseUrl, { format: "opus" as never, json: true });
    expect((await opus.closed).code).toBe(1003);
    const big = await ChanWebsocketClient.dial(server.sawt.baseUrl, { format: "ulaw", json: false });
    big.ws.send(new Uint8Array(70_000));
    expect((await big.closed).code).toBe(1009);
    // Before: a TEXT message over the bound was parsed and acted on (this one closed 1003 for its format).
    for (const json of [false, true]) {
      const text = await ChanWebsocketClient.dial(server.sawt.baseUrl, { format: "ulaw", json, silent: true });
      const id = "x".repeat(70_000);
      text.ws.send(json ? JSON.stringify({ event: "MEDIA_START", channel_id: id }) : `MEDIA_START channel_id:${id}`);
      expect(await text.closed).toMatchObject({ code: 1009, reason: "message too big" });
    }
  });

  test("does close a socket that never sends MEDIA_START", async () => {
    const quiet = await ChanWebsocketClient.dial(server.sawt.baseUrl, { format: "ulaw", json: false, silent: true });
    expect((await quiet.closed).code).toBe(1008);
  });

  test("does end a call that vanishes, with HANGUP", async () => {
    const asterisk = await ChanWebsocketClient.dial(server.sawt.baseUrl, { format: "ulaw", json: false });
    await callOpen(server, asterisk.channelId);
    const app = await watchCall(server, asterisk.channelId);
    expect(await app.next("call.ended")).toMatchObject({ reason: "idle" });
    await asterisk.next("HANGUP");
    await asterisk.closed;
  });
});

describe("the externalMedia door", () => {
  test("does refuse a bad format with 422 and hear nothing from outside calls.allowed_networks", async () => {
    const post = (base: CallServer, body: unknown) =>
      fetch(`${base.sawt.baseUrl}/v1/calls`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": base.key },
        body: JSON.stringify(body),
      });
    expect((await post(server, { format: "opus" })).status).toBe(422);
    const call = (await (await post(outside, { format: "ulaw" })).json()) as { id: string; external_host: string };
    const app = await watchCall(outside, call.id);
    const udp = createSocket("udp4");
    const port = Number(call.external_host.split(":")[1]);
    for (let n = 0; n < 50; n++)
      udp.send(
        buildRtp({ payloadType: 0, marker: false, sequence: n, timestamp: n * 160, ssrc: 1 }, new Uint8Array(160)),
        port,
        "127.0.0.1",
      );
    // Loopback is not an allowed network there: nothing latched, so the call stays silent and ends idle.
    expect(await app.next("call.ended")).toMatchObject({ reason: "idle" });
    udp.close();
  });
});

describe("the call API", () => {
  test("does answer commands for a call that ended with 404, and bad commands with error events", async () => {
    const { id, peer, app } = await audioSocketCall(server, 8000);
    app.sendJson({ type: "dance" });
    app.sendJson({ type: "say" });
    app.ws.send(new Uint8Array(4));
    await app.next("error", 3);
    const errors = app.events.filter((e) => e.type === "error");
    expect(errors.map((e) => e.status)).toEqual([400, 422, 400]);
    peer.close();
    await app.next("call.ended");
    const say = await fetch(`${server.sawt.baseUrl}/v1/calls/${id}/say`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": server.key },
      body: JSON.stringify({ text: "مرحبا" }),
    });
    expect(say.status).toBe(404);
    const late = await connect(`${server.sawt.baseUrl.replace(/^http/, "ws")}/v1/calls/${id}`, {
      headers: { "x-api-key": server.key },
    });
    expect((await late.closed).code).toBe(1008);
    expect(late.events[0]).toMatchObject({ type: "error", status: 404 });
  });

  test("does leave nothing open, and /health answered 200 throughout", async () => {
    const families = ["sawt_calls{", "sawt_call_connections{", "sawt_call_rtp_ports", "sawt_asr_open_streams{"];
    for (const s of [server, outside]) {
      await until(async () => {
        const lines = (await (await fetch(`${s.sawt.baseUrl}/metrics`)).text()).split("\n");
        const held = families.map((family) => {
          const samples = lines.filter((line) => line.startsWith(family));
          expect(samples.length).toBeGreaterThan(0);
          return samples.reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
        });
        return held.every((value) => value === 0);
      }, "every call, connection, slot and port released");
      const list = (await (await fetch(`${s.sawt.baseUrl}/v1/calls`, { headers: { "x-api-key": s.key } })).json()) as {
        data: unknown[];
      };
      expect(list.data).toEqual([]);
    }
    const refused = (await (await fetch(`${server.sawt.baseUrl}/metrics`)).text())
      .split("\n")
      .filter((line) => line.startsWith("sawt_calls_refused_total{"));
    expect(refused.join("\n")).toContain('reason="protocol"');
    expect(refused.join("\n")).toContain('reason="silent"');
    expect(health.length).toBeGreaterThan(10);
    expect(health.every((status) => status === 200)).toBe(true);
  });
});
