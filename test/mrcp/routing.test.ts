/**
 * The MRCP door's dialogs behind a SIP proxy, with a hand-written client against a real Sawt:
 * the INVITE's Record-Route comes back in the 200 (RFC 3261 §12.1.1), the box's own BYE (here at
 * `mrcp.session_timeout_s`) goes through the route set or to the IVR's Contact (§12.2.1.1), and
 * the address the box advertises in its SDP answer when bound to a wildcard.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSocket, type Socket } from "node:dgram";
import { firstExternalIpv4 } from "../../src/edge/networks.ts";
import { offer, SipClient } from "./client.ts";
import { startMrcpSawt, type MrcpSawt } from "./support.ts";

let server: MrcpSawt;

beforeAll(async () => {
  server = await startMrcpSawt({ SAWT_MRCP_SESSION_TIMEOUT_S: "1" });
  await server.sawt.server.enginesSettled;
}, 60_000);

afterAll(async () => {
  await server?.close();
});

/** A UDP socket on 127.0.0.1 that keeps every datagram it receives. */
async function listener(): Promise<{ socket: Socket; port: number; received: string[] }> {
  const socket = createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
  const received: string[] = [];
  socket.on("message", (bytes) => received.push(bytes.toString("utf8")));
  return { socket, port: socket.address().port, received };
}

async function byeIn(received: string[], timeoutMs = 4000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const bye = received.find((m) => m.startsWith("BYE "));
    if (bye) return bye;
    if (Date.now() > deadline) throw new Error(`no BYE in ${timeoutMs} ms`);
    await Bun.sleep(50);
  }
}

const routes = (text: string) => [...text.matchAll(/^Route: (.*)\r$/gm)].map((m) => m[1]);
const recordRoutes = (text: string) => [...text.matchAll(/^Record-Route: (.*)\r$/gm)].map((m) => m[1]);
const toTag = (text: string) => /^To:.*;tag=([^;\s]+)/m.exec(text)![1]!;

describe("the MRCP door's dialog routing", () => {
  test("does copy two Record-Route headers into the 200 in order and send its BYE through the first", async () => {
    const [proxy, ivr] = [await listener(), await listener()];
    const client = await SipClient.open(server.sipPort);
    const recorded = [`<sip:127.0.0.1:${proxy.port};lr>`, `<sip:10.9.9.9:5070;lr;transport=udp>`];
    const contact = `sip:ivr@127.0.0.1:${ivr.port}`;
    client.raw(
      client.request("INVITE", {
        body: offer(["speechsynth"], 40000),
        contact,
        extra: recorded.map((r) => `Record-Route: ${r}`),
      }),
    );
    const answer = await client.next();
    expect(answer.status).toBe(200);
    expect(recordRoutes(answer.text)).toEqual(recorded);
    client.raw(client.request("ACK", { toTag: toTag(answer.text), cseq: 1 }));
    // mrcp.session_timeout_s = 1: the box ends the session itself.
    const bye = await byeIn(proxy.received);
    expect(bye.split("\r\n")[0]).toBe(`BYE ${contact} SIP/2.0`);
    expect(routes(bye)).toEqual(recorded);
    expect(bye).toContain(`Call-ID: ${client.callId}`);
    expect(ivr.received.some((m) => m.startsWith("BYE "))).toBe(false);
    expect(client.pending.some((r) => r.text.startsWith("BYE "))).toBe(false);
    for (const s of [proxy.socket, ivr.socket]) s.close();
    client.close();
  });

  test("does send its BYE to the INVITE's Contact, not to the INVITE's source, without Record-Route", async () => {
    const ivr = await listener();
    const client = await SipClient.open(server.sipPort);
    const contact = `sip:ivr@127.0.0.1:${ivr.port}`;
    client.raw(client.request("INVITE", { body: offer(["speechsynth"], 40000), contact }));
    const answer = await client.next();
    expect(answer.status).toBe(200);
    expect(recordRoutes(answer.text)).toEqual([]);
    client.raw(client.request("ACK", { toTag: toTag(answer.text), cseq: 1 }));
    const bye = await byeIn(ivr.received);
    expect(bye.split("\r\n")[0]).toBe(`BYE ${contact} SIP/2.0`);
    expect(routes(bye)).toEqual([]);
    expect(client.pending.some((r) => r.text.startsWith("BYE "))).toBe(false);
    ivr.socket.close();
    client.close();
  });

  test("does send its BYE to the Contact of the last re-INVITE", async () => {
    const [first, moved] = [await listener(), await listener()];
    const client = await SipClient.open(server.sipPort);
    client.raw(
      client.request("INVITE", { body: offer(["speechsynth"], 40000), contact: `sip:ivr@127.0.0.1:${first.port}` }),
    );
    const answer = await client.next();
    const tag = toTag(answer.text);
    client.raw(client.request("ACK", { toTag: tag, cseq: 1 }));
    const contact = `sip:ivr@127.0.0.1:${moved.port}`;
    client.raw(client.request("INVITE", { toTag: tag, body: offer(["speechsynth"], 40000), contact }));
    expect((await client.next()).status).toBe(200);
    client.raw(client.request("ACK", { toTag: tag, cseq: 2 }));
    const bye = await byeIn(moved.received);
    expect(bye.split("\r\n")[0]).toBe(`BYE ${contact} SIP/2.0`);
    expect(first.received.some((m) => m.startsWith("BYE "))).toBe(false);
    for (const s of [first.socket, moved.socket]) s.close();
    client.close();
  });

  test("does advertise the machine's first non-internal IPv4 address when bound to 0.0.0.0", async () => {
    const wildcard = await startMrcpSawt({ SAWT_HOST: "0.0.0.0", SAWT_DRAIN_TIMEOUT_MS: "200" });
    try {
      await wildcard.sawt.server.enginesSettled;
      const client = await SipClient.open(wildcard.sipPort);
      client.raw(client.request("INVITE", { body: offer(["speechsynth"], 40000) }));
      const answer = await client.next();
      expect(answer.status).toBe(200);
      const expected = firstExternalIpv4() ?? "127.0.0.1";
      expect(/^c=IN IP4 (\S+)/m.exec(answer.text)?.[1]).toBe(expected);
      expect(answer.header("contact")).toBe(`<sip:sawt@${expected}:${wildcard.sipPort}>`);
      client.close();
    } finally {
      await wildcard.close();
    }
  }, 60_000);

  test("does advertise mrcp.advertised_address exactly when it is set", async () => {
    const fixed = await startMrcpSawt({
      SAWT_HOST: "0.0.0.0",
      SAWT_MRCP_ADVERTISED_ADDRESS: "192.0.2.10",
      SAWT_DRAIN_TIMEOUT_MS: "200",
    });
    try {
      await fixed.sawt.server.enginesSettled;
      const client = await SipClient.open(fixed.sipPort);
      client.raw(client.request("INVITE", { body: offer(["speechsynth"], 40000) }));
      const answer = await client.next();
      expect(answer.status).toBe(200);
      expect(/^c=IN IP4 (\S+)/m.exec(answer.text)?.[1]).toBe("192.0.2.10");
      expect(/^o=\S+ \S+ \S+ IN IP4 (\S+)/m.exec(answer.text)?.[1]).toBe("192.0.2.10");
      expect(answer.header("contact")).toBe(`<sip:sawt@192.0.2.10:${fixed.sipPort}>`);
      client.close();
    } finally {
      await fixed.close();
    }
  }, 60_000);
});
