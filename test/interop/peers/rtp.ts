/**
 * The RTP side of the interop suite. ffmpeg (Debian's) sends a recording as RTP in real time
 * (`-re`, PCMU or PCMA in 20 ms packets) to Sawt's port, and records what Sawt sends from an SDP
 * file naming the IVR's port, decoding G.711 with its own decoder. What ffmpeg cannot play — RFC
 * 4733 telephone-events, RFC 3389 comfort noise, and one socket that both sends speech and watches
 * the packets coming back (barge-in) — is a small dgram peer here, whose G.711 payload is ffmpeg's
 * encoding of the recording.
 */
import { createSocket, type Socket } from "node:dgram";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveFfmpegBinary } from "../../../src/audio/ffmpeg.ts";
import { buildRtp, parseRtp, type RtpPacket } from "../../../src/media/rtp-packet.ts";
import { ffmpegSync } from "../../support/audio.ts";

/** A G.711 codec by its RTP name. */
export type G711 = "PCMU" | "PCMA";

const PAYLOAD_TYPE: Record<G711, number> = { PCMU: 0, PCMA: 8 };
const FFMPEG_CODEC: Record<G711, string> = { PCMU: "pcm_mulaw", PCMA: "pcm_alaw" };
const FFMPEG_FORMAT: Record<G711, string> = { PCMU: "mulaw", PCMA: "alaw" };

/** Whether `port` is bound by some UDP socket on this machine (/proc/net/udp). */
function udpBound(port: number): boolean {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, "0")} `;
  return ["/proc/net/udp", "/proc/net/udp6"].some((file) => {
    try {
      return readFileSync(file, "utf8").includes(hex);
    } catch {
      return false;
    }
  });
}

/** 16-bit little-endian bytes of samples. */
const bytesOf = (pcm: Int16Array) => new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);

/** ffmpeg recording the RTP Sawt sends to `port` (an even port, RTCP on the next) as 8 kHz linear PCM. */
export async function recordRtp(port: number, codec: G711): Promise<{ stop(): Promise<Int16Array> }> {
  const dir = mkdtempSync(join(tmpdir(), "sawt-rtp-rec-"));
  const sdp = join(dir, "in.sdp");
  const pt = PAYLOAD_TYPE[codec];
  writeFileSync(
    sdp,
    [
      "v=0",
      "o=- 0 0 IN IP4 127.0.0.1",
      "s=ivr",
      "c=IN IP4 127.0.0.1",
      "t=0 0",
      `m=audio ${port} RTP/AVP ${pt}`,
      `a=rtpmap:${pt} ${codec}/8000`,
      "",
    ].join("\r\n"),
  );
  const out = join(dir, "out.raw");
  const proc = Bun.spawn(
    [
      resolveFfmpegBinary(),
      "-nostdin",
      "-hide_banner",
      "-loglevel",
      "error",
      "-protocol_whitelist",
      "file,udp,rtp",
      "-analyzeduration",
      "0",
      "-probesize",
      "32",
      "-i",
      sdp,
      "-f",
      "s16le",
      "-ac",
      "1",
      "-ar",
      "8000",
      // Every packet reaches the file as it is decoded, so stopping ffmpeg loses nothing.
      "-flush_packets",
      "1",
      "-y",
      out,
    ],
    { stdout: "ignore", stderr: "pipe" },
  );
  const deadline = Date.now() + 10_000;
  while (!udpBound(port)) {
    if (Date.now() > deadline || proc.exitCode !== null) {
      proc.kill("SIGKILL");
      throw new Error(`ffmpeg did not start listening on ${port}: ${await new Response(proc.stderr).text()}`);
    }
    await Bun.sleep(20);
  }
  return {
    async stop() {
      // Blocked on a socket with nothing more to read, ffmpeg would not see a SIGINT; the file
      // already holds every packet (-flush_packets).
      await Bun.sleep(100);
      proc.kill("SIGKILL");
      await proc.exited;
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(readFileSync(out));
      } catch {
        bytes = new Uint8Array(0);
      }
      rmSync(dir, { recursive: true, force: true });
      return new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 2));
    },
  };
}

/** ffmpeg sending 8 kHz linear `pcm` to `port` as RTP in real time, in 20 ms packets; resolves when it is done. */
export async function sendRtp(pcm: Int16Array, port: number, codec: G711): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "sawt-rtp-send-"));
  const input = join(dir, "in.raw");
  writeFileSync(input, bytesOf(pcm));
  const proc = Bun.spawn(
    [
      resolveFfmpegBinary(),
      "-nostdin",
      "-hide_banner",
      "-loglevel",
      "error",
      "-re",
      "-f",
      "s16le",
      "-ar",
      "8000",
      "-ac",
      "1",
      "-i",
      input,
      "-c:a",
      FFMPEG_CODEC[codec],
      "-payload_type",
      String(PAYLOAD_TYPE[codec]),
      // 12 header bytes + 160 samples: one 20 ms packet each.
      "-packetsize",
      "172",
      "-f",
      "rtp",
      `rtp://127.0.0.1:${port}`,
    ],
    { stdout: "ignore", stderr: "pipe" },
  );
  const code = await proc.exited;
  rmSync(dir, { recursive: true, force: true });
  if (code !== 0) throw new Error(`ffmpeg RTP sender failed: ${await new Response(proc.stderr).text()}`);
}

/** 8 kHz linear `pcm` encoded by ffmpeg as G.711 payload bytes. */
export function g711Payload(pcm: Int16Array, codec: G711): Uint8Array {
  return ffmpegSync(
    ["-f", "s16le", "-ar", "8000", "-ac", "1", "-i", "pipe:0", "-f", FFMPEG_FORMAT[codec], "pipe:1"],
    bytesOf(pcm),
  );
}

/** A packet the dgram peer received, with when. */
export interface Received extends RtpPacket {
  readonly at: number;
}

/**
 * A dgram RTP peer on one port: sends G.711 frames, RFC 4733 digits and RFC 3389 comfort noise
 * in real time, and keeps what arrives (with arrival times).
 */
export class RtpPeer {
  readonly received: Received[] = [];
  private sequence = 1000;
  private timestamp = 160_000;
  private readonly ssrc = 0x5a5a_0001;

  private constructor(
    private readonly socket: Socket,
    readonly port: number,
    private readonly to: number,
  ) {
    socket.on("message", (bytes) => {
      const packet = parseRtp(new Uint8Array(bytes));
      if (packet) this.received.push({ ...packet, at: performance.now() });
    });
  }

  /** Binds `port` (0: any) and sends to Sawt's `to`. */
  static async open(port: number, to: number): Promise<RtpPeer> {
    const socket = createSocket("udp4");
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind(port, "127.0.0.1", () => resolve());
    });
    return new RtpPeer(socket, socket.address().port, to);
  }

  private send(payloadType: number, marker: boolean, payload: Uint8Array, advance: number): void {
    const packet = buildRtp(
      { payloadType, marker, sequence: this.sequence, timestamp: this.timestamp, ssrc: this.ssrc },
      payload,
    );
    this.sequence = (this.sequence + 1) & 0xffff;
    this.timestamp = (this.timestamp + advance) >>> 0;
    this.socket.send(packet, this.to, "127.0.0.1");
  }

  /** Sends G.711 payload in 20 ms packets paced on the wall clock. */
  async audio(payload: Uint8Array, codec: G711): Promise<void> {
    const start = performance.now();
    for (let i = 0, n = 0; i < payload.length; i += 160, n++) {
      this.send(PAYLOAD_TYPE[codec], n === 0, payload.subarray(i, i + 160), 160);
      const wait = start + (n + 1) * 20 - performance.now();
      if (wait > 0) await Bun.sleep(wait);
    }
  }

  /** Sends `digits` as RFC 4733 events (payload type `pt`): 100 ms tones, end packet sent three times, 100 ms apart. */
  async digits(digits: string, pt = 101): Promise<void> {
    for (const digit of digits) {
      const event = "0123456789*#ABCD".indexOf(digit);
      const start = this.timestamp;
      for (let step = 1; step <= 5; step++) {
        const end = step === 5;
        const duration = step * 160;
        const payload = Uint8Array.of(event, (end ? 0x80 : 0) | 10, duration >> 8, duration & 0xff);
        for (let copy = 0; copy < (end ? 3 : 1); copy++) {
          const packet = buildRtp(
            { payloadType: pt, marker: step === 1, sequence: this.sequence, timestamp: start, ssrc: this.ssrc },
            payload,
          );
          this.sequence = (this.sequence + 1) & 0xffff;
          this.socket.send(packet, this.to, "127.0.0.1");
        }
        await Bun.sleep(20);
      }
      this.timestamp = (start + 800) >>> 0;
      await Bun.sleep(100);
    }
  }

  /** Sends RFC 3389 comfort noise (payload type 13, noise level 60 -dBov) every 200 ms for `ms`. */
  async comfortNoise(ms: number): Promise<void> {
    for (let t = 0; t < ms; t += 200) {
      this.send(13, t === 0, Uint8Array.of(60), 1600);
      await Bun.sleep(200);
    }
  }

  close(): void {
    this.socket.close();
  }
}
