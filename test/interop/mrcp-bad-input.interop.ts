/**
 * Issue 36, acceptance 5: bad input on every side of the MRCP door, from peers that are not Sawt's
 * code. SIPp's malformed scenario (each request answered as RFC 3261 says), 200 random or broken
 * datagrams, OPTIONS over TCP, an INVITE from outside `mrcp.allowed_networks` (403), and on an
 * open session MRCP messages with unknown methods, unknown channels and wrong lengths (built by
 * the npm `mrcp` package, or raw where the package cannot write them broken): RFC 6787's error
 * responses, the connection still usable after. Never a crash, never a leaked session or port.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSocket } from "node:dgram";
import { join } from "node:path";
import mrcp from "mrcp";
import type { MrcpSawt } from "../mrcp/support.ts";
import { MrcpPeer } from "./peers/mrcp-client.ts";
import { runSipp } from "./peers/sipp.ts";
import { freeEvenPort, startToneMrcpSawt, waitForIdle } from "./support.ts";

let server: MrcpSawt;

beforeAll(async () => {
  server = await startToneMrcpSawt({ voice: true }, { SAWT_MRCP_ALLOWED_NETWORKS: "127.0.0.1/32" });
}, 60_000);

afterAll(() => server?.close());

const target = () => `127.0.0.1:${server.sipPort}`;
const healthy = async () => (await fetch(`${server.sawt.baseUrl}/health`)).status;
const malformedCount = async () =>
  Number(
    /^sawt_mrcp_sip_malformed_total (\d+)/m.exec(await (await fetch(`${server.sawt.baseUrl}/metrics`)).text())?.[1] ??
      0,
  );

/** A well-formed OPTIONS, as text, for the datagram breakers to break. */
function options(cseq: number, extra = ""): string {
  return [
    `OPTIONS sip:sawt@127.0.0.1:${server.sipPort} SIP/2.0`,
    `Via: SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bK-fuzz-${cseq}`,
    "From: <sip:fuzz@127.0.0.1>;tag=fuzz",
    `To: <sip:sawt@127.0.0.1:${server.sipPort}>`,
    `Call-ID: fuzz-${cseq}@127.0.0.1`,
    `CSeq: ${cseq} OPTIONS`,
    "Max-Forwards: 70",
    ...(extra ? [extra] : []),
    "Content-Length: 0",
    "",
    "",
  ].join("\r\n");
}

describe("bad input on Sawt's MRCP door", () => {
  test("does answer SIPp's malformed and unwelcome requests as RFC 3261 says, then still serve", async () => {
    const before = await malformedCount();
    const result = await runSipp({ scenario: "malformed.xml", target: target() }).done;
    expect(result.errors).toBe("");
    expect(result.code).toBe(0);
    expect(result.successful).toBe(1);
    for (const status of ["505", "400", "513", "405", "501", "481", "200"]) {
      expect(result.messages).toContain(`SIP/2.0 ${status} `);
    }
    expect((await malformedCount()) - before).toBe(7);
    expect(await healthy()).toBe(200);
  }, 30_000);

  test("does answer 200 random and broken datagrams with 400, 505, 513 or silence, and a folded header with 200", async () => {
    const socket = createSocket("udp4");
    await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
    const answers: string[] = [];
    socket.on("message", (bytes) => answers.push(bytes.toString("utf8").split("\r\n")[0]!));
    const breakers: ((i: number) => string | Uint8Array)[] = [
      (i) => crypto.getRandomValues(new Uint8Array(1 + ((i * 37) % 1400))),
      (i) => options(i).slice(0, 10 + ((i * 13) % 200)),
      (i) => options(i).replace(/CSeq: \d+/, `CSeq: x${i}`),
      (i) => options(i).replace("CSeq: ", "CSeq: 99999999999 "),
      (i) => options(i).replace("Content-Length: 0", `Content-Length: ${i + 1}`),
      (i) => options(i).replace("\r\n\r\n", "\r\n\0\r\n\r\n"),
      (i) => options(i).replace("SIP/2.0\r\n", `SIP/${(i % 9) + 1}.${i % 7}\r\n`),
      (i) => options(i).replace(/^OPTIONS/, "\u00ffPTIONS"),
    ];
    for (let i = 0; i < 200; i++) {
      const message = breakers[i % breakers.length]!(i);
      socket.send(typeof message === "string" ? Buffer.from(message) : message, server.sipPort, "127.0.0.1");
      if (i % 10 === 9) await Bun.sleep(5);
    }
    socket.send(Buffer.from(options(1000, "Subject: one\r\n  folded onto two lines")), server.sipPort, "127.0.0.1");
    await Bun.sleep(500);
    socket.close();
    const statuses = answers.map((line) => Number(/^SIP\/2\.0 (\d{3})/.exec(line)?.[1] ?? 0));
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 200).every((s) => [400, 505, 513].includes(s))).toBe(true);
    expect(await healthy()).toBe(200);
    expect((await runSipp({ scenario: "options.xml", target: target() }).done).code).toBe(0);
  }, 30_000);

  test("does answer OPTIONS over TCP", async () => {
    const result = await runSipp({ scenario: "options.xml", target: target(), transport: "t1" }).done;
    expect(result.errors).toBe("");
    expect(result.code).toBe(0);
  }, 30_000);

  test("does refuse an INVITE from outside mrcp.allowed_networks with 403", async () => {
    const result = await runSipp({ scenario: "forbidden.xml", target: target(), localIp: "127.0.0.2" }).done;
    expect(result.errors).toBe("");
    expect(result.code).toBe(0);
    expect(result.messages).toContain("SIP/2.0 403 Forbidden");
  }, 30_000);

  test("does answer broken MRCP messages with RFC 6787 status codes and keep the channel usable", async () => {
    const port = await freeEvenPort();
    const sipp = runSipp({
      scenario: "session.xml",
      target: target(),
      rows: [[port, "speechsynth", "0 8"]],
      holdMs: 6000,
    });
    const [call] = await sipp.calls(1);
    const channel = call!.channel!;
    const peer = await MrcpPeer.open(Number(call!.mrcp));
    try {
      const status = async (id: number) => (await peer.response(id)).status_code ?? 0;
      // Built by the package: an unknown method, an unknown channel.
      expect(await status(peer.send("FROBNICATE", channel))).toBe(401);
      expect(await status(peer.send("SPEAK", "0000@speechsynth", { "content-type": "text/plain" }, "x"))).toBe(405);
      // No Channel-Identifier at all.
      peer.raw(mrcp.builder.build_request("SPEAK", 50, { "content-type": "text/plain" }, "x"));
      expect(await status(50)).toBe(406);
      // Raw: a length the connection could never hold, the wrong version, bytes that are not MRCP.
      peer.raw("MRCP/2.0 99999999 SPEAK 51\r\n\r\n");
      expect(await status(51)).toBe(504);
      peer.raw("MRCP/1.0 30 SPEAK 52\r\n\r\n      ");
      expect(await status(52)).toBe(502);
      peer.raw("this is not MRCP at all\r\n\r\n");
      expect((await peer.next((m) => m.type === "response" && m.status_code === 408)).request_id).toBe(0);
      // A length shorter than the message: its tail is garbage the stream resynchronises past.
      const whole = mrcp.builder.build_request("SPEAK", 53, { "channel-identifier": channel }, "مرحبا");
      peer.raw(whole.replace(/^MRCP\/2\.0 \d+/, "MRCP/2.0 40"));
      expect([406, 408]).toContain(await status(53));
      // A request id that does not increase.
      const params = peer.send("GET-PARAMS", channel);
      expect(await status(params)).toBe(200);
      peer.raw(mrcp.builder.build_request("GET-PARAMS", params, { "channel-identifier": channel }));
      expect(await status(params)).toBe(410);
      // Still usable: a SPEAK completes.
      const id = 60;
      peer.raw(
        mrcp.builder.build_request(
          "SPEAK",
          id,
          { "channel-identifier": channel, "content-type": "text/plain" },
          "مرحبا",
        ),
      );
      expect((await peer.event("SPEAK-COMPLETE", id, 15_000)).headers["completion-cause"]).toBe("000 normal");
    } finally {
      const result = await sipp.done;
      peer.close();
      expect(result.code).toBe(0);
    }
    expect(await healthy()).toBe(200);
    expect(await waitForIdle(server)).toEqual({ sessions: 0, rtpPorts: 0 });
  }, 30_000);
});
