/**
 * The externalMedia door (issue 41, acceptance 3) against a real `sawt serve`: `POST /v1/calls`
 * answers what an ARI application passes to externalMedia; ffmpeg (Debian's) sends a recording as
 * RTP PCMU to that port — as Asterisk would, from a port of its own — and the caller's finals
 * equal REST's transcript; then ffmpeg records, on that same port, the RTP Sawt answers a `say`
 * with, and it equals REST's `pcm` within G.711. A dgram peer sends RFC 4733 digits, and packets
 * from another source once the call latched are not heard.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createSocket } from "node:dgram";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveFfmpegBinary } from "../../src/audio/ffmpeg.ts";
import { buildRtp } from "../../src/media/rtp-packet.ts";
import { recordRtp, RtpPeer, g711Payload } from "../interop/peers/rtp.ts";
import { silence } from "../asr/support.ts";
import { until } from "../support/sawt.ts";
import {
  type CallServer,
  callerAudio,
  PHONE_TEXTS,
  pcm16,
  restPcm,
  restTranscript,
  startCallServer,
  watchCall,
} from "./support.ts";

let server: CallServer;

beforeAll(async () => {
  server = await startCallServer({ SAWT_RUNTIME_METRICS_OPEN: "true" });
});

afterAll(async () => {
  await server?.stop();
});

/** `POST /v1/calls` with `body`. */
async function open(body: Record<string, unknown>): Promise<{ id: string; external_host: string; format: string }> {
  const response = await fetch(`${server.sawt.baseUrl}/v1/calls`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": server.key },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
  return response.json() as never;
}

/** ffmpeg sending 8 kHz `pcm` as RTP PCMU in real time to `port`, from `localPort` (as Asterisk sends from its own port). */
async function ffmpegSend(pcm: Uint8Array, port: number, localPort: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "sawt-em-"));
  const input = join(dir, "in.raw");
  writeFileSync(input, pcm);
  const proc = Bun.spawn(
    [
      resolveFfmpegBinary(),
      ...["-nostdin", "-hide_banner", "-loglevel", "error", "-re"],
      ...["-f", "s16le", "-ar", "8000", "-ac", "1", "-i", input],
      ...["-c:a", "pcm_mulaw", "-payload_type", "0", "-packetsize", "172", "-f", "rtp"],
      `rtp://127.0.0.1:${port}?localrtpport=${localPort}`,
    ],
    { stdout: "ignore", stderr: "pipe" },
  );
  const code = await proc.exited;
  rmSync(dir, { recursive: true, force: true });
  if (code !== 0) throw new Error(`ffmpeg: ${await new Response(proc.stderr).text()}`);
}

/** The offset (in samples) at which `recorded` best lines up with `reference`. */
function alignment(recorded: Int16Array, reference: Int16Array, span = 1600): number {
  let best = 0;
  let bestScore = -Infinity;
  for (let lag = 0; lag < Math.min(span, recorded.length); lag++) {
    let score = 0;
    for (let i = 0; i < 800 && i + lag < recorded.length && i < reference.length; i++)
      score += recorded[i + lag]! * reference[i]!;
    if (score > bestScore) {
      bestScore = score;
      best = lag;
    }
  }
  return best;
}

test("does transcribe ffmpeg's RTP PCMU as REST does, and answer say with RTP equal to REST pcm within G.711", async () => {
  const call = await open({ format: "ulaw", voice: "Yara" });
  expect(call.format).toBe("ulaw");
  const [host, port] = call.external_host.split(":");
  expect(host).toBe("127.0.0.1");
  const app = await watchCall(server, call.id);
  expect(await app.next("call.started")).toMatchObject({ door: "external_media", format: "ulaw" });

  const audio = callerAudio([PHONE_TEXTS[0]], 8000);
  const asteriskPort = 46000 + 2 * Math.floor(Math.random() * 2000);
  await ffmpegSend(pcm16(audio), Number(port), asteriskPort);
  await app.next("transcript.final");
  expect(
    app.events
      .filter((e) => e.type === "transcript.final")
      .map((e) => e.text)
      .join(" "),
  ).toBe(await restTranscript(server, audio, 8000));

  // Sawt answers where the RTP came from: ffmpeg now records on that port.
  const recorder = await recordRtp(asteriskPort, "PCMU");
  app.sendJson({ type: "say", text: PHONE_TEXTS[1] });
  await app.next("playback.done");
  const recorded = await recorder.stop();
  const rest = new Int16Array((await restPcm(server, PHONE_TEXTS[1], 8000)).buffer);
  const lag = alignment(recorded, rest);
  expect(recorded.length - lag).toBeGreaterThanOrEqual(rest.length - 160);
  let worst = 0;
  for (let i = 0; i < rest.length && i + lag < recorded.length; i++) {
    const x = rest[i]!;
    // μ-law keeps about 4 bits of mantissa: an error within a sixteenth of the level, or a few steps near zero.
    worst = Math.max(worst, Math.abs(recorded[i + lag]! - x) - Math.max(32, Math.abs(x) / 16));
  }
  expect(worst).toBeLessThanOrEqual(0);

  await fetch(`${server.sawt.baseUrl}/v1/calls/${call.id}/hangup`, {
    method: "POST",
    headers: { "x-api-key": server.key },
  });
  expect(await app.next("call.ended")).toMatchObject({ reason: "command" });
}, 60_000);

test("does report RFC 4733 digits and hear nothing from a second source once latched", async () => {
  const call = await open({ format: "ulaw" });
  const port = Number(call.external_host.split(":")[1]);
  const app = await watchCall(server, call.id);
  await app.next("call.started");
  const peer = await RtpPeer.open(0, port);
  const stray = createSocket("udp4");
  try {
    const caller = peer.audio(g711Payload(new Int16Array(pcm16(silence(2, 8000)).buffer), "PCMU"), "PCMU");
    await Bun.sleep(200);
    // Another host's stream (a late leg, a spoofer) speaking while the latched one is silent.
    const speech = g711Payload(new Int16Array(pcm16(callerAudio([PHONE_TEXTS[2]], 8000)).buffer), "PCMU");
    for (let at = 0, n = 0; at < speech.length; at += 160, n++) {
      const packet = buildRtp(
        { payloadType: 0, marker: n === 0, sequence: n, timestamp: n * 160, ssrc: 77 },
        speech.subarray(at, at + 160),
      );
      stray.send(packet, port, "127.0.0.1");
    }
    await peer.digits("9");
    expect(await app.next("dtmf")).toMatchObject({ digit: "9" });
    await caller;
    await Bun.sleep(300);
    expect(app.events.some((e) => e.type === "transcript.final" || e.type === "speech.started")).toBe(false);
  } finally {
    peer.close();
    stray.close();
  }
  await fetch(`${server.sawt.baseUrl}/v1/calls/${call.id}/hangup`, {
    method: "POST",
    headers: { "x-api-key": server.key },
  });
  await app.next("call.ended");
  await until(async () => {
    const list = await (
      await fetch(`${server.sawt.baseUrl}/v1/calls`, { headers: { "x-api-key": server.key } })
    ).json();
    return (list as { data: unknown[] }).data.length === 0;
  }, "no open call");
}, 60_000);

test("does refuse a call in a language nothing loaded serves with 400, before it opens a call or holds a port", async () => {
  // The test server loads no English recogniser (asr.builtin = false): the call would end at once.
  const response = await fetch(`${server.sawt.baseUrl}/v1/calls`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": server.key },
    body: JSON.stringify({ format: "ulaw", language: "en" }),
  });
  expect(response.status).toBe(400);
  expect(await response.json()).toEqual({
    error: "http_error",
    code: "HTTP_400",
    detail: expect.stringContaining("no English recogniser"),
  });
  const list = await (await fetch(`${server.sawt.baseUrl}/v1/calls`, { headers: { "x-api-key": server.key } })).json();
  expect((list as { data: unknown[] }).data).toEqual([]);
  const metrics = await (await fetch(`${server.sawt.baseUrl}/metrics`)).text();
  expect(metrics).toMatch(/^sawt_call_rtp_ports 0$/m);
  // An Arabic call on the same server opens as before.
  const call = await open({ format: "ulaw", language: "ar" });
  await fetch(`${server.sawt.baseUrl}/v1/calls/${call.id}/hangup`, {
    method: "POST",
    headers: { "x-api-key": server.key },
  });
});
