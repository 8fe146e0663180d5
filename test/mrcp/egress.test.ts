/**
 * Issue 39, the air gap on the MRCP door: no byte leaves the box except to hosts the operator
 * configured. For the MRCP door those are `mrcp.allowed_networks`, and an SDP offer or a Contact
 * must not widen them: an m=audio whose address is outside them, or a host name (a DNS lookup at
 * run time), is refused with port 0, so no RTP is ever sent there; the box's own BYE goes to the
 * INVITE's source when the Contact names a host outside them. Before, the box sent a SPEAK's RTP
 * wherever the offer's c= pointed and its BYE wherever the Contact did.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { offer, SipClient } from "./client.ts";
import { startMrcpSawt, type MrcpSawt } from "./support.ts";

let server: MrcpSawt;

beforeAll(async () => {
  server = await startMrcpSawt({ SAWT_MRCP_IDLE_TIMEOUT_S: "1" });
  await server.sawt.server.enginesSettled;
}, 60_000);

afterAll(async () => {
  await server?.close();
});

/** The answer's m=audio port for an offer whose audio address is `address`. */
async function audioPortFor(
  address: string,
): Promise<{ status: number; port: number; client: SipClient; tag: string }> {
  const client = await SipClient.open(server.sipPort);
  const body = offer(["speechsynth"], 40000).replace("c=IN IP4 127.0.0.1", `c=IN IP4 ${address}`);
  client.raw(client.request("INVITE", { body }));
  const reply = await client.next();
  const tag = /tag=([^;\s]+)/.exec(reply.header("to") ?? "")?.[1] ?? "";
  return { status: reply.status, port: Number(/m=audio (\d+)/.exec(reply.text)?.[1] ?? -1), client, tag };
}

describe("where the MRCP door sends", () => {
  test("does refuse audio addressed outside mrcp.allowed_networks or by host name, and keep the loopback one", async () => {
    for (const [address, open] of [
      ["127.0.0.1", true],
      ["192.0.2.7", false],
      ["pbx.example.invalid", false],
      ["0.0.0.0", true], // RFC 3264 hold: kept, sent nothing
    ] as const) {
      const { status, port, client, tag } = await audioPortFor(address);
      expect(status, address).toBe(200);
      if (open) expect(port, address).toBeGreaterThan(0);
      else expect(port, address).toBe(0);
      client.raw(client.request("BYE", { toTag: tag }));
      expect((await client.next()).status).toBe(200);
      client.close();
    }
  });

  test("does send its BYE to the INVITE's source when the Contact names a host outside mrcp.allowed_networks", async () => {
    const client = await SipClient.open(server.sipPort);
    client.raw(client.request("INVITE", { body: offer(["speechsynth"], 40000), contact: "sip:ivr@192.0.2.9:5060" }));
    const reply = await client.next();
    expect(reply.status).toBe(200);
    const tag = /tag=([^;\s]+)/.exec(reply.header("to")!)![1]!;
    client.raw(client.request("ACK", { toTag: tag, cseq: 1 }));
    // The session idles out (1 s): the box ends it with a BYE.
    const bye = await client.next((r) => r.text.startsWith("BYE "), 6000);
    expect(bye.text).toContain(`Call-ID: ${client.callId}`);
    client.close();
  }, 15_000);
});
