/**
 * The MRCP door's SIP side at its edges, with a hand-written client against a real Sawt: OPTIONS,
 * a retransmitted INVITE (one session), malformed datagrams (400 or silence, never a crash),
 * peers outside `mrcp.allowed_networks` or without a key (403), the session limit (503 +
 * Retry-After), a client that INVITEs and vanishes (idle timeout frees the session and its port),
 * and a drain (OPTIONS 503, no new sessions, the open one finishes).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { rtpPortsInUse } from "../../src/media/ports.ts";
import { answerOf, offer, SipClient } from "./client.ts";
import { startMrcpSawt, type MrcpSawt } from "./support.ts";

let server: MrcpSawt;

beforeAll(async () => {
  server = await startMrcpSawt({
    SAWT_MRCP_ALLOWED_NETWORKS: "127.0.0.1/32\n127.0.0.3/32",
    SAWT_MRCP_MAX_SESSIONS: "2",
    SAWT_MRCP_IDLE_TIMEOUT_S: "2",
    SAWT_DRAIN_TIMEOUT_MS: "10000",
  });
  await server.sawt.server.enginesSettled;
}, 60_000);

afterAll(async () => {
  await server?.close();
});

const sessions = () => server.sawt.server.mrcp!.sessions;

async function invite(client: SipClient, resources = ["speechsynth"]) {
  client.raw(client.request("INVITE", { body: offer(resources, 40000) }));
  return client.next();
}

async function bye(client: SipClient, toTag: string) {
  client.raw(client.request("BYE", { toTag }));
  return client.next();
}

describe("the MRCP door's SIP side", () => {
  test("does answer OPTIONS 200 when ready", async () => {
    const client = await SipClient.open(server.sipPort);
    client.raw(client.request("OPTIONS"));
    expect((await client.next()).status).toBe(200);
    client.close();
  });

  test("does answer OPTIONS over TCP, framed by Content-Length", async () => {
    const client = await SipClient.open(server.sipPort);
    const socket = connect(server.sipPort, "127.0.0.1");
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (text += chunk));
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    const request = client.request("OPTIONS").replace("SIP/2.0/UDP", "SIP/2.0/TCP");
    socket.write(request.slice(0, 30));
    await Bun.sleep(50);
    socket.write(
      request.slice(30) + request.replace("CSeq: 1 ", "CSeq: 1 ").replace(/branch=[^;]+/, "branch=z9hG4bKtcp2"),
    );
    const deadline = Date.now() + 3000;
    while ((text.match(/SIP\/2\.0 200/g) ?? []).length < 2 && Date.now() < deadline) await Bun.sleep(20);
    expect((text.match(/SIP\/2\.0 200/g) ?? []).length).toBe(2);
    socket.destroy();
    client.close();
  });

  test("does add and remove a resource on re-INVITE, keeping the session", async () => {
    const client = await SipClient.open(server.sipPort);
    const first = await invite(client, ["speechsynth"]);
    const tag = /tag=([^;\s]+)/.exec(first.header("to")!)![1]!;
    client.raw(client.request("ACK", { toTag: tag, cseq: 1 }));
    client.raw(client.request("INVITE", { toTag: tag, body: offer(["speechsynth", "speechrecog"], 40000) }));
    const added = await client.next();
    expect(added.status).toBe(200);
    expect([...added.text.matchAll(/a=channel:(\S+)/g)].map((m) => m[1]!.split("@")[1])).toEqual([
      "speechsynth",
      "speechrecog",
    ]);
    expect(added.text).toContain("a=connection:existing");
    expect(answerOf(added.text).channel).toBe(answerOf(first.text).channel);
    const removeRecog = offer(["speechsynth", "speechrecog"], 40000).replace(
      /m=application 9 (TCP\/MRCPv2 1\r\na=setup:active\r\na=connection:new\r\na=resource:speechrecog)/,
      "m=application 0 $1",
    );
    client.raw(client.request("INVITE", { toTag: tag, body: removeRecog }));
    const removed = await client.next();
    expect(removed.status).toBe(200);
    expect(removed.text).not.toContain("@speechrecog");
    expect(removed.text).toContain("m=application 0 TCP/MRCPv2");
    expect(sessions()).toBe(1);
    expect((await bye(client, tag)).status).toBe(200);
    client.close();
  });

  test("does answer a retransmitted INVITE with the same 200 and open one session", async () => {
    const client = await SipClient.open(server.sipPort);
    const text = client.request("INVITE", { body: offer(["speechsynth"], 40000), branch: "z9hG4bKretrans1" });
    client.raw(text);
    const first = await client.next();
    client.raw(text);
    const again = await client.next();
    expect(first.status).toBe(200);
    expect(again.header("to")).toBe(first.header("to"));
    expect(answerOf(again.text)).toEqual(answerOf(first.text));
    expect(sessions()).toBe(1);
    const tag = /tag=([^;\s]+)/.exec(first.header("to")!)![1]!;
    client.raw(client.request("ACK", { toTag: tag, cseq: 1 }));
    expect((await bye(client, tag)).status).toBe(200);
    expect(sessions()).toBe(0);
    client.close();
  });

  test("does answer 200 malformed datagrams with 400 or silence and keep serving", async () => {
    const client = await SipClient.open(server.sipPort);
    const good = client.request("OPTIONS");
    const breakers: ((i: number) => string | Uint8Array)[] = [
      (i) => good.replace("SIP/2.0", `SIP/${i % 3}.9`),
      (i) => good.replace(/CSeq: \d+ OPTIONS/, `CSeq: x${i} OPTIONS`),
      (i) => good.replace(/Call-ID:.*\r\n/, i % 2 ? "" : "Call-ID:\r\n"),
      (i) => good.replace("Content-Length: 0", `Content-Length: ${i + 10}`),
      (i) => good.replace("Max-Forwards: 70", `${"X".repeat(3000 + i)}: y`),
      (i) => crypto.getRandomValues(new Uint8Array(20 + i)),
      (i) => `${good.slice(0, 40 + i)}`,
      (i) => good.replace("\r\n\r\n", `\r\n${"Y-Header: v\r\n".repeat(70 + i)}\r\n`),
    ];
    for (let i = 0; i < 200; i++) {
      client.raw(breakers[i % breakers.length]!(i));
      // Paced, so the kernel's socket buffer never drops a datagram before the door sees it.
      if (i % 10 === 9) await Bun.sleep(5);
    }
    await Bun.sleep(300);
    const statuses = new Set(client.pending.map((r) => r.status));
    expect([...statuses].every((s) => s === 400 || s === 413 || s === 505 || s === 513)).toBe(true);
    expect(statuses.has(400)).toBe(true);
    expect((await fetch(`${server.sawt.baseUrl}/health`)).status).toBe(200);
    client.raw(client.request("OPTIONS"));
    expect((await client.next((r) => r.text.includes(`CSeq: ${2} OPTIONS`) || r.status === 200)).status).toBe(200);
    const metrics = await (await fetch(`${server.sawt.baseUrl}/metrics`)).text();
    expect(Number(/sawt_mrcp_sip_malformed_total (\d+)/.exec(metrics)?.[1])).toBe(200);
    client.close();
  });

  test("does refuse a peer outside allowed_networks, or without a key, with 403", async () => {
    const outside = await SipClient.open(server.sipPort, "127.0.0.2");
    expect((await invite(outside)).status).toBe(403);
    outside.close();
    const keyless = await SipClient.open(server.sipPort, "127.0.0.3");
    const refused = await invite(keyless);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("No API key");
    keyless.close();
    expect(sessions()).toBe(0);
  });

  test("does refuse sessions beyond max_sessions with 503 and Retry-After", async () => {
    const clients = await Promise.all([1, 2, 3].map(() => SipClient.open(server.sipPort)));
    const [a, b] = [await invite(clients[0]!), await invite(clients[1]!)];
    expect([a.status, b.status]).toEqual([200, 200]);
    const third = await invite(clients[2]!);
    expect(third.status).toBe(503);
    expect(third.header("retry-after")).toBe("5");
    for (const [client, reply] of [
      [clients[0]!, a],
      [clients[1]!, b],
    ] as const)
      await bye(client, /tag=([^;\s]+)/.exec(reply.header("to")!)![1]!);
    for (const c of clients) c.close();
    expect(sessions()).toBe(0);
  });

  test("does free the session and its RTP port when the client INVITEs and vanishes", async () => {
    const client = await SipClient.open(server.sipPort);
    expect((await invite(client)).status).toBe(200);
    client.close(); // no ACK, no MRCP connection, no RTP, no BYE
    expect(sessions()).toBe(1);
    expect(rtpPortsInUse()).toBe(1);
    const deadline = Date.now() + 6000;
    while (sessions() > 0 && Date.now() < deadline) await Bun.sleep(100);
    expect(sessions()).toBe(0);
    expect(rtpPortsInUse()).toBe(0);
  });

  test("does answer OPTIONS 503 and refuse INVITEs while draining, letting the open session finish", async () => {
    const open = await SipClient.open(server.sipPort);
    const accepted = await invite(open);
    const tag = /tag=([^;\s]+)/.exec(accepted.header("to")!)![1]!;
    open.raw(open.request("ACK", { toTag: tag, cseq: 1 }));
    // Keep it alive past the idle timeout with OPTIONS-free activity: the drain waits for it.
    const stopping = server.sawt.server.stop();
    await Bun.sleep(200);
    const probe = await SipClient.open(server.sipPort);
    probe.raw(probe.request("OPTIONS"));
    expect((await probe.next()).status).toBe(503);
    const late = await invite(probe);
    expect(late.status).toBe(503);
    expect(sessions()).toBe(1);
    expect((await bye(open, tag)).status).toBe(200);
    await stopping;
    probe.close();
    open.close();
  });

  test("does close with a session open without a late retransmission crashing the process", async () => {
    const other = await startMrcpSawt({ SAWT_DRAIN_TIMEOUT_MS: "200" });
    await other.sawt.server.enginesSettled;
    const client = await SipClient.open(other.sipPort);
    client.raw(client.request("INVITE", { body: offer(["speechsynth"], 40000) }));
    const accepted = await client.next();
    const tag = /tag=([^;\s]+)/.exec(accepted.header("to")!)![1]!;
    client.raw(client.request("ACK", { toTag: tag, cseq: 1 }));
    await Bun.sleep(50);
    await other.close(); // sends a BYE, whose retransmission timer outlives the socket
    // The drain deadline passed with the session open: the peer gets a BYE.
    expect((await client.next((r) => r.text.startsWith("BYE "), 2000)).text).toContain(`Call-ID: ${client.callId}`);
    await Bun.sleep(800);
    client.close();
  });
});
