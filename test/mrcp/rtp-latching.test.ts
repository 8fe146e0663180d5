/**
 * Issue 39, the RTP contract: packets from an unexpected address or SSRC are dropped and counted
 * (`sawt_mrcp_rtp_stray_total{reason}`), and nothing else changes. The first packet from the
 * negotiated address latches the stream's SSRC; another SSRC mid-stream is dropped, and taken
 * only once the latched source has been silent for RELATCH_AFTER_MS (RFC 3550 §8.2 lets a source
 * change its SSRC). Seen through DTMF: digits sent by a stranger or a second stream never reach
 * the recogniser, and dropped packets never keep an idle session alive.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSocket, type Socket } from "node:dgram";
const RELATCH_AFTER_MS = 1000;
import { buildRtp } from "../../src/media/rtp-packet.ts";
import { parseMetrics } from "../support/in-process.ts";
import { answerOf, MrcpConnection, offer, SipClient } from "./client.ts";
import { startMrcpSawt, type MrcpSawt } from "./support.ts";

let server: MrcpSawt;

beforeAll(async () => {
  server = await startMrcpSawt({ SAWT_MRCP_IDLE_TIMEOUT_S: "2" });
  await server.sawt.server.enginesSettled;
}, 60_000);

afterAll(async () => {
  await server?.close();
});

async function udp(address: string): Promise<Socket> {
  const socket = createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, address, () => resolve()));
  return socket;
}

let timestamp = 1000;
/** One RFC 4733 digit (three packets of one event, the last with the end bit) from `ssrc`. */
async function digit(socket: Socket, port: number, ssrc: number, key: number): Promise<void> {
  timestamp += 800;
  for (let i = 0; i < 3; i++) {
    const payload = Uint8Array.of(key, (i === 2 ? 0x80 : 0) | 10, 0, 160 * (i + 1));
    socket.send(
      buildRtp({ payloadType: 101, marker: i === 0, sequence: timestamp / 8 + i, timestamp, ssrc }, payload),
      port,
      "127.0.0.1",
    );
    await Bun.sleep(20);
  }
}

async function strays(): Promise<Record<string, number>> {
  const metrics = parseMetrics(await (await fetch(`${server.sawt.baseUrl}/metrics`)).text());
  const of = (reason: string) => metrics.get(`sawt_mrcp_rtp_stray_total{reason="${reason}"}`) ?? 0;
  return { address: of("address"), ssrc: of("ssrc"), malformed: of("malformed") };
}

async function session(resources: string[], rtpPort: number) {
  const sip = await SipClient.open(server.sipPort);
  sip.raw(sip.request("INVITE", { body: offer(resources, rtpPort, "0 101") }));
  const answer = await sip.next();
  expect(answer.status).toBe(200);
  const tag = /tag=([^;\s]+)/.exec(answer.header("to")!)![1]!;
  sip.raw(sip.request("ACK", { toTag: tag, cseq: 1 }));
  return { sip, tag, answer: answerOf(answer.text) };
}

describe("RTP from the negotiated address", () => {
  test("does latch the first SSRC, drop and count other SSRCs and addresses mid-stream, and take a new SSRC after a silence", async () => {
    const caller = await udp("127.0.0.1");
    const stranger = await udp("127.0.0.2");
    const { sip, tag, answer } = await session(["speechrecog"], caller.address().port);
    const mrcp = await MrcpConnection.open(answer.mrcpPort);
    const before = await strays();
    mrcp.send(
      "RECOGNIZE",
      1,
      answer.channel,
      { "Content-Type": "text/uri-list", "No-Input-Timeout": "20000" },
      "builtin:dtmf/digits?length=3",
    );
    await mrcp.next(/ 1 200 IN-PROGRESS/);
    await digit(caller, answer.audioPort, 1111, 1); // latches 1111
    await digit(caller, answer.audioPort, 2222, 9); // another stream from the same host: dropped
    await digit(stranger, answer.audioPort, 1111, 7); // another host: dropped
    caller.send(Uint8Array.of(1, 2, 3), answer.audioPort, "127.0.0.1"); // not RTP: dropped
    await digit(caller, answer.audioPort, 1111, 2);
    await Bun.sleep(RELATCH_AFTER_MS + 200);
    await digit(caller, answer.audioPort, 3333, 3); // the source restarted: taken
    const result = await mrcp.next(/RECOGNITION-COMPLETE 1 COMPLETE/, 10_000);
    expect(result).toContain("Completion-Cause: 000 success");
    expect(result).toContain("<instance>123</instance>");
    const after = await strays();
    expect({
      address: after.address! - before.address!,
      ssrc: after.ssrc! - before.ssrc!,
      malformed: after.malformed! - before.malformed!,
    }).toEqual({ address: 3, ssrc: 3, malformed: 1 });
    sip.raw(sip.request("BYE", { toTag: tag }));
    expect((await sip.next()).status).toBe(200);
    mrcp.close();
    sip.close();
    caller.close();
    stranger.close();
  }, 30_000);

  test("does not let dropped packets keep an idle session alive", async () => {
    const caller = await udp("127.0.0.1");
    const stranger = await udp("127.0.0.2");
    const sessions = () => server.sawt.server.mrcp!.sessions;
    const before = sessions();
    const { sip, answer } = await session(["speechsynth"], caller.address().port);
    const port = answer.audioPort;
    expect(sessions()).toBe(before + 1);
    // Stray packets (another host, not RTP) for longer than mrcp.idle_timeout_s (2 s).
    const opened = performance.now();
    const flood = setInterval(() => {
      stranger.send(Uint8Array.of(0x80, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1), port, "127.0.0.1");
      caller.send(Uint8Array.of(1, 2, 3), port, "127.0.0.1");
    }, 20);
    while (sessions() > before && performance.now() - opened < 6000) await Bun.sleep(50);
    clearInterval(flood);
    expect(sessions()).toBe(before);
    sip.close();
    caller.close();
    stranger.close();
  }, 30_000);
});
