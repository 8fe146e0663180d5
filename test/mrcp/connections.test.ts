/**
 * Issue 39, "connections without a bound": the SIP port over TCP and the MRCP control port cap
 * their connections (`mrcp.max_connections`) and close one that stays silent before identifying
 * itself (`mrcp.identify_timeout_s`), with metrics for both. Before the fix every socket was
 * accepted and held: 400 silent connections to the MRCP port and 200 to SIP were all open 65 s
 * later. A connection that identified itself (a SIP message, an MRCP request on its channel) and
 * one an open session still waits for (the IVR may connect long before its first SPEAK) stay.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { parseMetrics } from "../support/in-process.ts";
import { answerOf, MrcpConnection, offer, SipClient } from "./client.ts";
import { startMrcpSawt, type MrcpSawt } from "./support.ts";

const CAP = 40;
let server: MrcpSawt;

beforeAll(async () => {
  server = await startMrcpSawt({
    SAWT_MRCP_MAX_CONNECTIONS: String(CAP),
    SAWT_MRCP_IDENTIFY_TIMEOUT_S: "1",
  });
  await server.sawt.server.enginesSettled;
}, 60_000);

afterAll(async () => {
  await server?.close();
});

/** A TCP connection that sends nothing; `closed` turns true when the server closes it. */
interface Silent {
  readonly socket: Socket;
  closed: boolean;
}

async function openSilent(port: number): Promise<Silent> {
  const socket = connect(port, "127.0.0.1");
  const silent: Silent = { socket, closed: false };
  socket.on("close", () => (silent.closed = true));
  socket.on("error", () => {});
  socket.on("data", () => {});
  await new Promise<void>((resolve) => {
    socket.once("connect", () => resolve());
    socket.once("close", () => resolve());
  });
  return silent;
}

async function metrics(): Promise<Map<string, number>> {
  return parseMetrics(await (await fetch(`${server.sawt.baseUrl}/metrics`)).text());
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check()) return true;
    await Bun.sleep(25);
  }
  return check();
}

const openCount = (all: readonly Silent[]) => all.filter((s) => !s.closed).length;

describe("the MRCP door's TCP ports", () => {
  test("does refuse connections over mrcp.max_connections and close silent ones after mrcp.identify_timeout_s", async () => {
    const before = await metrics();
    const opened = performance.now();
    const mrcp: Silent[] = [];
    const sip: Silent[] = [];
    // One at a time, so which ones are over the cap is known: the last 20 of each port.
    for (let i = 0; i < CAP + 20; i++) mrcp.push(await openSilent(server.mrcpPort));
    for (let i = 0; i < CAP + 20; i++) sip.push(await openSilent(server.sipPort));
    expect(
      await waitFor(() => mrcp.slice(CAP).every((s) => s.closed) && sip.slice(CAP).every((s) => s.closed), 2000),
    ).toBe(true);
    const held = await metrics();
    // Unless the machine stalled past the timeout while they opened, the first CAP are still open.
    if (performance.now() - opened < 900) {
      expect(openCount(mrcp)).toBe(CAP);
      expect(held.get('sawt_tcp_connections{door="mrcp"}')).toBe(CAP);
      expect(held.get('sawt_tcp_connections{door="sip"}')).toBe(CAP);
    }
    expect(held.get('sawt_tcp_connections_max{door="mrcp"}')).toBe(CAP);
    expect(held.get('sawt_tcp_connections_max{door="sip"}')).toBe(CAP);
    const refused = (door: string, m: Map<string, number>) =>
      m.get(`sawt_tcp_connections_refused_total{door="${door}",reason="limit"}`) ?? 0;
    expect(refused("mrcp", held) - refused("mrcp", before)).toBe(20);
    expect(refused("sip", held) - refused("sip", before)).toBe(20);
    // Then every silent one is closed, about a second after it opened.
    expect(await waitFor(() => openCount(mrcp) + openCount(sip) === 0, 5000)).toBe(true);
    const after = await metrics();
    const silent = (door: string, m: Map<string, number>) =>
      m.get(`sawt_tcp_connections_silent_total{door="${door}"}`) ?? 0;
    expect(silent("mrcp", after) - silent("mrcp", before)).toBe(CAP);
    expect(silent("sip", after) - silent("sip", before)).toBe(CAP);
    expect(after.get('sawt_tcp_connections{door="mrcp"}')).toBe(0);
    expect(after.get('sawt_tcp_connections{door="sip"}')).toBe(0);
    // The ports still serve.
    const client = await SipClient.open(server.sipPort);
    client.raw(client.request("OPTIONS"));
    expect((await client.next()).status).toBe(200);
    client.close();
  }, 30_000);

  test("does keep identified connections and the one an open session waits for, and close the rest", async () => {
    // A silent connection first (nobody's), then a session whose channel waits for its
    // connection, then that connection, quiet until the IVR's first request.
    const stranger = await openSilent(server.mrcpPort);
    const sip = await SipClient.open(server.sipPort);
    sip.raw(sip.request("INVITE", { body: offer(["speechsynth"], 40000) }));
    const answer = await sip.next();
    expect(answer.status).toBe(200);
    const tag = /tag=([^;\s]+)/.exec(answer.header("to")!)![1]!;
    sip.raw(sip.request("ACK", { toTag: tag, cseq: 1 }));
    const awaited = await MrcpConnection.open(answerOf(answer.text).mrcpPort);
    let awaitedClosed = false;
    awaited.socket.on("close", () => (awaitedClosed = true));
    // A SIP-over-TCP connection that identifies itself with an OPTIONS.
    const sipTcp = await openSilent(server.sipPort);
    let sipText = "";
    sipTcp.socket.on("data", (chunk: Buffer) => (sipText += chunk.toString("utf8")));
    sipTcp.socket.write(sip.request("OPTIONS").replace("SIP/2.0/UDP", "SIP/2.0/TCP"));
    await Bun.sleep(2500);
    expect(stranger.closed).toBe(true);
    expect(awaitedClosed).toBe(false);
    expect(sipTcp.closed).toBe(false);
    expect(sipText).toStartWith("SIP/2.0 200");
    // The waited-for connection serves its channel.
    awaited.send("SET-PARAMS", 1, answerOf(answer.text).channel, { "Voice-Name": "Yara" });
    expect(await awaited.next(/ 1 200 COMPLETE/)).toContain("MRCP/2.0");
    // Once its session ends, it serves nothing: it is closed like a new silent one.
    sip.raw(sip.request("BYE", { toTag: tag }));
    expect((await sip.next()).status).toBe(200);
    expect(await waitFor(() => awaitedClosed, 4000)).toBe(true);
    sipTcp.socket.destroy();
    sip.close();
  }, 30_000);
});
