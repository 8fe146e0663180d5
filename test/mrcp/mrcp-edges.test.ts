/**
 * The MRCP door's control and media sides with a hand-written client against a real Sawt (the
 * tone voice): bad MRCP messages get the RFC's status codes on a connection that stays usable;
 * SET-PARAMS/GET-PARAMS; SPEAK streams RTP paced at 20 ms and completes 000 normal; STOP and
 * BARGE-IN-OCCURRED stop it; a grammar with a DTD fails to compile; RTP from an address other
 * than the negotiated one is dropped and counted; a caller speaking during a prompt barges in
 * (START-OF-INPUT stops the SPEAK of the same session with 001 barge-in).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSocket, type Socket } from "node:dgram";
import { join } from "node:path";
import { buildRtp, parseRtp } from "../../src/media/rtp-packet.ts";
import { encodeG711 } from "../../src/audio/g711.ts";
import { floatToInt16 } from "../../src/audio/wav.ts";
import { concat, silence } from "../asr/support.ts";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { tempDir } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap } from "../tts/support.ts";
import { answerOf, MrcpConnection, offer, SipClient } from "./client.ts";
import { startMrcpSawt, type MrcpSawt } from "./support.ts";

const LONG = "مرحبا بكم في خدمة العملاء. ".repeat(6);
const models = tempDir("sawt-mrcp-edges-");
let server: MrcpSawt;

beforeAll(async () => {
  await writePiperPack(join(models.path, "yara"), {
    name: "ar_text",
    sampleRate: 16000,
    phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
    phonemeType: "text",
  });
  await writeToneCtcPack(join(models.path, "tone-ctc"));
  server = await startMrcpSawt({
    SAWT_MODELS_DIR: models.path,
    SAWT_ASR_PACK: "tone-ctc",
    SAWT_STREAMING_PARTIAL_INTERVAL_MS: "0",
  });
  await server.sawt.server.enginesSettled;
}, 60_000);

afterAll(async () => {
  await server?.close();
  models.remove();
});

interface Call {
  sip: SipClient;
  mrcp: MrcpConnection;
  rtp: Socket;
  packets: { at: number; bytes: Uint8Array }[];
  synth: string;
  recog: string;
  serverRtp: number;
  hangUp(): Promise<void>;
}

/** A session with both resources and an RTP socket receiving what Sawt sends. */
async function call(): Promise<Call> {
  const rtp = createSocket("udp4");
  await new Promise<void>((resolve) => rtp.bind(0, "127.0.0.1", () => resolve()));
  const packets: Call["packets"] = [];
  rtp.on("message", (bytes) => packets.push({ at: performance.now(), bytes: new Uint8Array(bytes) }));
  const sip = await SipClient.open(server.sipPort);
  sip.raw(sip.request("INVITE", { body: offer(["speechsynth", "speechrecog"], rtp.address().port, "0 101") }));
  const answer = await sip.next();
  expect(answer.status).toBe(200);
  const tag = /tag=([^;\s]+)/.exec(answer.header("to")!)![1]!;
  sip.raw(sip.request("ACK", { toTag: tag, cseq: 1 }));
  const channels = [...answer.text.matchAll(/a=channel:(\S+)/g)].map((m) => m[1]!);
  const mrcp = await MrcpConnection.open(answerOf(answer.text).mrcpPort);
  return {
    sip,
    mrcp,
    rtp,
    packets,
    synth: channels.find((c) => c.endsWith("@speechsynth"))!,
    recog: channels.find((c) => c.endsWith("@speechrecog"))!,
    serverRtp: answerOf(answer.text).audioPort,
    async hangUp() {
      sip.raw(sip.request("BYE", { toTag: tag }));
      expect((await sip.next()).status).toBe(200);
      mrcp.close();
      sip.close();
      rtp.close();
    },
  };
}

describe("the MRCP door's control channel", () => {
  test("does answer bad messages with RFC status codes and keep the connection usable", async () => {
    const c = await call();
    c.mrcp.send("FROBNICATE", 1, c.synth);
    expect(await c.mrcp.next(/^MRCP\/2\.0 \d+ 1 401 COMPLETE/)).toContain(c.synth);
    c.mrcp.send("SPEAK", 2, "nosuch@speechsynth");
    await c.mrcp.next(/^MRCP\/2\.0 \d+ 2 405 COMPLETE/);
    c.mrcp.raw("MRCP/2.0 40 SPEAK 3\r\nContent-Type: text/plain\r\n\r\n");
    await c.mrcp.next(/^MRCP\/2\.0 \d+ 3 (406|408) COMPLETE/);
    c.mrcp.raw("MRCP/2.0 99999999 SPEAK 4\r\n\r\n");
    await c.mrcp.next(/^MRCP\/2\.0 \d+ 4 504 COMPLETE/);
    c.mrcp.raw(
      `MRCP/2.0 20000 SPEAK 5\r\nChannel-Identifier: ${c.synth}\r\nX-Huge: ${"h".repeat(6000)}\r\n\r\n`.padEnd(
        20000,
        " ",
      ),
    );
    await c.mrcp.next(/^MRCP\/2\.0 \d+ 5 (408|504) COMPLETE/);
    c.mrcp.raw("garbage that is not MRCP\r\n\r\n");
    await c.mrcp.next(/^MRCP\/2\.0 \d+ 0 408 COMPLETE/);
    c.mrcp.raw("MRCP/1.0 30 SPEAK 6\r\n\r\n      ");
    await c.mrcp.next(/^MRCP\/2\.0 \d+ 6 502 COMPLETE/);
    c.mrcp.send("SET-PARAMS", 7, c.synth, { "Voice-Name": "Yara", "X-Unknown": "1" });
    expect(await c.mrcp.next(/ 7 403 COMPLETE/)).toMatch(/x-unknown/i);
    c.mrcp.send("GET-PARAMS", 8, c.synth, { "Voice-Name": "" });
    expect(await c.mrcp.next(/ 8 200 COMPLETE/)).toMatch(/voice-name: Yara/i);
    c.mrcp.send("GET-PARAMS", 8, c.synth);
    await c.mrcp.next(/ 8 410 COMPLETE/);
    await c.hangUp();
  });

  test("does stream a SPEAK as RTP paced at 20 ms and complete it with 000 normal", async () => {
    const c = await call();
    c.mrcp.send(
      "SPEAK",
      1,
      c.synth,
      { "Content-Type": "text/plain", "Speech-Language": "ar-EG" },
      "مرحبا بكم في خدمة العملاء",
    );
    await c.mrcp.next(/ 1 200 IN-PROGRESS/);
    const complete = await c.mrcp.next(/SPEAK-COMPLETE 1 COMPLETE/, 15000);
    expect(complete).toContain("Completion-Cause: 000 normal");
    const rtp = c.packets.map((p) => ({ at: p.at, packet: parseRtp(p.bytes)! }));
    expect(rtp.length).toBeGreaterThan(20);
    expect(rtp.every((p) => p.packet.payloadType === 0 && p.packet.payload.length <= 160)).toBe(true);
    expect(rtp[0]!.packet.marker).toBe(true);
    for (let i = 1; i < rtp.length; i++) {
      expect((rtp[i]!.packet.sequence - rtp[i - 1]!.packet.sequence) & 0xffff).toBe(1);
      expect(rtp[i]!.packet.timestamp - rtp[i - 1]!.packet.timestamp).toBe(160);
    }
    // Real time: the stream lasts about as long as its audio (not a burst).
    const seconds = (rtp.at(-1)!.at - rtp[0]!.at) / 1000;
    expect(seconds).toBeGreaterThan((rtp.length - 1) * 0.02 * 0.8);
    await c.hangUp();
  }, 30_000);

  test("does send SPEECH-MARKER as the RTP reaches an SSML mark: at 0 and at the first sentence's end", async () => {
    const c = await call();
    const atMarker: Record<string, number> = {};
    c.mrcp.socket.on("data", (chunk: string) => {
      for (const m of chunk.matchAll(/Speech-Marker: timestamp=\d{1,20};(\S+)/g))
        if (/SPEECH-MARKER/.test(chunk)) atMarker[m[1]!] ??= c.packets.length;
    });
    const first = "مرحبا بكم في خدمة العملاء.";
    const ssml = `<speak><mark name="start"/>${first} <mark name="next"/>شكرا لك.</speak>`;
    c.mrcp.send("SPEAK", 1, c.synth, { "Content-Type": "application/ssml+xml" }, ssml);
    await c.mrcp.next(/ 1 200 IN-PROGRESS/);
    expect(await c.mrcp.next(/SPEECH-MARKER 1 IN-PROGRESS/, 15000)).toMatch(/Speech-Marker: timestamp=\d+;start\r\n/);
    expect(await c.mrcp.next(/SPEECH-MARKER 1 IN-PROGRESS/, 15000)).toContain(";next\r\n");
    const complete = await c.mrcp.next(/SPEAK-COMPLETE 1 COMPLETE/, 15000);
    expect(complete).toContain("Completion-Cause: 000 normal");
    expect(complete).toMatch(/Speech-Marker: timestamp=\d+;next/);
    // The first sentence alone, as REST speaks it for this codec (PCMU at 8 kHz): its length is the mark's place.
    const rest = await fetch(`${server.sawt.baseUrl}/v1/tts/audio/speech`, {
      method: "POST",
      headers: { "x-api-key": server.key, "content-type": "application/json" },
      body: JSON.stringify({ input: first, response_format: "pcm", sample_rate: 8000, encoding: "pcm_mulaw" }),
    });
    const firstSamples = (await rest.arrayBuffer()).byteLength;
    expect(atMarker.start).toBeLessThanOrEqual(1);
    // Samples sent (160 per packet) when the marker arrived: the first sentence's, within 20 ms (160 samples).
    expect(Math.abs(atMarker.next! * 160 - firstSamples)).toBeLessThanOrEqual(160);
    await c.hangUp();
  }, 30_000);

  test("does hold packets on PAUSE and continue on RESUME with a new talk spurt", async () => {
    const c = await call();
    c.mrcp.send("PAUSE", 1, c.synth);
    await c.mrcp.next(/ 1 402 COMPLETE/);
    c.mrcp.send("SPEAK", 2, c.synth, { "Content-Type": "text/plain" }, LONG);
    await c.mrcp.next(/ 2 200 IN-PROGRESS/);
    while (c.packets.length < 5) await Bun.sleep(20);
    c.mrcp.send("PAUSE", 3, c.synth);
    await c.mrcp.next(/ 3 200 COMPLETE/);
    await Bun.sleep(100);
    const held = c.packets.length;
    await Bun.sleep(400);
    expect(c.packets.length - held).toBe(0);
    c.mrcp.send("RESUME", 4, c.synth);
    await c.mrcp.next(/ 4 200 COMPLETE/);
    await Bun.sleep(200);
    expect(c.packets.length).toBeGreaterThan(held + 3);
    expect(parseRtp(c.packets[held]!.bytes)!.marker).toBe(true);
    c.mrcp.send("STOP", 5, c.synth);
    await c.mrcp.next(/ 5 200 COMPLETE/);
    await c.hangUp();
  }, 30_000);

  test("does stop a SPEAK on STOP, and queued and speaking ones on BARGE-IN-OCCURRED", async () => {
    const c = await call();
    c.mrcp.send("SPEAK", 1, c.synth, { "Content-Type": "text/plain" }, LONG);
    await c.mrcp.next(/ 1 200 IN-PROGRESS/);
    c.mrcp.send("SPEAK", 2, c.synth, { "Content-Type": "text/plain" }, LONG);
    await c.mrcp.next(/ 2 200 PENDING/);
    await Bun.sleep(300);
    c.mrcp.send("STOP", 3, c.synth, { "Active-Request-Id-List": "1" });
    expect(await c.mrcp.next(/ 3 200 COMPLETE/)).toContain("Active-Request-Id-List: 1");
    // The queued SPEAK starts; the client barges in on it.
    await Bun.sleep(500);
    c.mrcp.send("BARGE-IN-OCCURRED", 4, c.synth);
    expect(await c.mrcp.next(/ 4 200 COMPLETE/)).toContain("Active-Request-Id-List: 2");
    const before = c.packets.length;
    await Bun.sleep(300);
    expect(c.packets.length - before).toBeLessThanOrEqual(2);
    await c.hangUp();
  }, 30_000);

  test("does fail a grammar with a DTD and drop RTP from an unexpected address", async () => {
    const c = await call();
    const evil = `<?xml version="1.0"?><!DOCTYPE g [<!ENTITY a "aaaa">]><grammar xmlns="http://www.w3.org/2001/06/grammar" root="r"><rule id="r"><item>&a;</item></rule></grammar>`;
    c.mrcp.send("DEFINE-GRAMMAR", 1, c.recog, { "Content-Type": "application/srgs+xml", "Content-Id": "evil" }, evil);
    expect(await c.mrcp.next(/ 1 407 COMPLETE/)).toMatch(/Completion-Cause: 00[45] grammar-/);
    const stranger = createSocket("udp4");
    await new Promise<void>((resolve) => stranger.bind(0, "127.0.0.2", () => resolve()));
    const packet = buildRtp(
      { payloadType: 101, marker: true, sequence: 1, timestamp: 1, ssrc: 7 },
      Uint8Array.of(1, 0x80, 0, 160),
    );
    for (let i = 0; i < 5; i++) stranger.send(packet, c.serverRtp, "127.0.0.1");
    await Bun.sleep(200);
    const metrics = await (await fetch(`${server.sawt.baseUrl}/metrics`)).text();
    expect(Number(/sawt_mrcp_rtp_stray_total{reason="address"} (\d+)/.exec(metrics)?.[1])).toBe(5);
    expect(metrics).toMatch(/sawt_mrcp_sessions 1/);
    stranger.close();
    await c.hangUp();
  });

  test("does stop a SPEAK with 001 barge-in when the recogniser of the same session hears speech", async () => {
    const c = await call();
    c.mrcp.send("SPEAK", 1, c.synth, { "Content-Type": "text/plain" }, LONG);
    await c.mrcp.next(/ 1 200 IN-PROGRESS/);
    c.mrcp.send(
      "RECOGNIZE",
      2,
      c.recog,
      { "Content-Type": "text/uri-list", "No-Input-Timeout": "20000" },
      "builtin:speech/transcribe",
    );
    await c.mrcp.next(/ 2 200 IN-PROGRESS/);
    const speech = concat(silence(0.3, 8000), letterToneAudio("نعم", 8000), silence(1.5, 8000));
    const codes = encodeG711(floatToInt16(speech), "pcm_mulaw");
    for (let i = 0, seq = 0; i < codes.length; i += 160, seq++) {
      const packet = buildRtp(
        { payloadType: 0, marker: seq === 0, sequence: seq, timestamp: i, ssrc: 42 },
        codes.subarray(i, i + 160),
      );
      c.rtp.send(packet, c.serverRtp, "127.0.0.1");
      if (seq % 5 === 4) await Bun.sleep(20);
    }
    await c.mrcp.next(/START-OF-INPUT 2 IN-PROGRESS/);
    expect(await c.mrcp.next(/SPEAK-COMPLETE 1 COMPLETE/)).toContain("Completion-Cause: 001 barge-in");
    const result = await c.mrcp.next(/RECOGNITION-COMPLETE 2 COMPLETE/, 10000);
    expect(result).toContain("Completion-Cause: 000 success");
    expect(result).toContain("<instance>نعم</instance>");
    await c.hangUp();
  }, 30_000);
});
