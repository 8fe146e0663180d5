/**
 * Issue 36, acceptance 4: SIPp opens 32 concurrent sessions at a steady rate (`-r 8 -l 32 -m 32`);
 * as each is answered the npm `mrcp` client SPEAKs a sentence with the tone voice on it and a
 * dgram socket on the session's RTP port takes the audio; SIPp hangs each up after its hold. SIPp
 * counts 0 failed calls, every SPEAK completes 000 normal with its audio delivered, `/health` is
 * 200 throughout, and the door is back to no session and no RTP port.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { MrcpSawt } from "../mrcp/support.ts";
import { MrcpPeer } from "./peers/mrcp-client.ts";
import { RtpPeer } from "./peers/rtp.ts";
import { runSipp, type SippCall } from "./peers/sipp.ts";
import { expectCleanRun, freeEvenPort, mrcpGauges, startToneMrcpSawt, waitForIdle } from "./support.ts";

const SESSIONS = 32;
const TEXT = "مرحبا بكم";
let server: MrcpSawt;

beforeAll(async () => {
  server = await startToneMrcpSawt({ voice: true });
}, 60_000);

afterAll(() => server?.close());

/** One caller: SPEAK on its channel, the audio taken on its RTP port; keeps both open until `hungUp`. */
async function speak(call: SippCall, hungUp: Promise<unknown>): Promise<{ cause: string; packets: number }> {
  const peer = await MrcpPeer.open(Number(call.mrcp));
  const rtp = await RtpPeer.open(Number(call.rtp), Number(call.audio));
  try {
    const id = peer.send("SPEAK", call.channel!, { "content-type": "text/plain", "voice-name": "Yara" }, TEXT);
    const complete = await peer.event("SPEAK-COMPLETE", id, 30_000);
    await hungUp;
    return { cause: complete.headers["completion-cause"] ?? "", packets: rtp.received.length };
  } finally {
    rtp.close();
    peer.close();
  }
}

describe("SIPp load on Sawt's MRCP door", () => {
  test(`does serve ${SESSIONS} concurrent SIPp sessions, each SPEAKing, with 0 failed calls and /health 200 throughout`, async () => {
    const ports = [];
    for (let i = 0; i < SESSIONS; i++) ports.push(await freeEvenPort());
    const sipp = runSipp({
      scenario: "session.xml",
      target: `127.0.0.1:${server.sipPort}`,
      rows: ports.map((port) => [port, "speechsynth", "0 8"]),
      calls: SESSIONS,
      limit: SESSIONS,
      rate: 8,
      holdMs: 8000,
      timeoutMs: 90_000,
    });
    const health: number[] = [];
    let most = 0;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        health.push((await fetch(`${server.sawt.baseUrl}/health`)).status);
        most = Math.max(most, (await mrcpGauges(server.sawt.baseUrl)).sessions);
        await Bun.sleep(250);
      }
    })();
    const speakers: Promise<{ cause: string; packets: number }>[] = [];
    let spoken: { cause: string; packets: number }[];
    let result: Awaited<typeof sipp.done>;
    try {
      for (let n = 1; n <= SESSIONS; n++) {
        const calls = await sipp.calls(n, 30_000);
        speakers.push(speak(calls[n - 1]!, sipp.done));
      }
      spoken = await Promise.all(speakers);
      result = await sipp.done;
    } finally {
      // A failure must not leave the watcher probing a server the next file's afterAll closed.
      watching = false;
      await watcher;
      sipp.kill();
      await Promise.allSettled(speakers);
    }
    console.info(
      `load: ${result.successful} successful, ${result.failed} failed, at most ${most} sessions open, ` +
        `${health.length} /health probes`,
    );
    expectCleanRun(result, SESSIONS);
    expect(result.successful).toBe(SESSIONS);
    expect(result.failed).toBe(0);
    expect(spoken.map((s) => s.cause)).toEqual(Array(SESSIONS).fill("000 normal"));
    // "مرحبا بكم" is well over a second of audio: 50 packets a second.
    for (const s of spoken) expect(s.packets).toBeGreaterThan(40);
    expect(most).toBe(SESSIONS);
    expect(health.every((status) => status === 200)).toBe(true);
    expect(await waitForIdle(server)).toEqual({ sessions: 0, rtpPorts: 0 });
  }, 120_000);
});
