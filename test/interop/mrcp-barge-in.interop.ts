/**
 * Issue 36, acceptance 3: barge-in on one SIPp session holding a synthesizer and a recogniser, as
 * an IVR's SynthAndRecog opens it. While a long SPEAK plays, the caller speaks (the dgram peer
 * streams ffmpeg's PCMU encoding of the speech in real time from the port it receives on): the
 * recogniser's START-OF-INPUT stops the SPEAK with SPEAK-COMPLETE `001 barge-in`, at most one RTP
 * packet follows that event, and the recognition completes with what the caller said.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { floatToInt16 } from "../../src/audio/wav.ts";
import { concat, silence } from "../asr/support.ts";
import type { MrcpSawt } from "../mrcp/support.ts";
import { letterToneAudio } from "../support/models/ctc.ts";
import { MrcpPeer } from "./peers/mrcp-client.ts";
import { g711Payload, RtpPeer } from "./peers/rtp.ts";
import { runSipp } from "./peers/sipp.ts";
import { expectCleanRun, freeEvenPort, startToneMrcpSawt, waitForIdle } from "./support.ts";

const RATE = 8000;
/** Long enough to be still speaking when the caller barges in. */
const PROMPT = Array.from({ length: 4 }, () => "مرحبا بكم في خدمة العملاء").join("، ");
let server: MrcpSawt;

beforeAll(async () => {
  server = await startToneMrcpSawt({ voice: true, recogniser: true });
}, 60_000);

afterAll(() => server?.close());

describe("barge-in on a SIPp session with both resources", () => {
  test("does stop the SPEAK with 001 barge-in when START-OF-INPUT fires, with no RTP after it beyond one packet", async () => {
    const port = await freeEvenPort();
    const sipp = runSipp({
      scenario: "session-synth-recog.xml",
      target: `127.0.0.1:${server.sipPort}`,
      rows: [[port, "-", "0 8"]],
      holdMs: 10_000,
    });
    const [call] = await sipp.calls(1);
    expect(call!.synth).toMatch(/@speechsynth$/);
    expect(call!.recog).toMatch(/@speechrecog$/);
    const peer = await MrcpPeer.open(Number(call!.mrcp));
    const rtp = await RtpPeer.open(port, Number(call!.audio));
    try {
      const speak = peer.send(
        "SPEAK",
        call!.synth!,
        { "content-type": "text/plain", "kill-on-barge-in": "true" },
        PROMPT,
      );
      expect((await peer.response(speak)).request_state).toBe("IN-PROGRESS");
      const recognize = peer.send(
        "RECOGNIZE",
        call!.recog!,
        { "content-type": "text/uri-list", "no-input-timeout": "8000" },
        "builtin:speech/transcribe",
      );
      expect((await peer.response(recognize)).request_state).toBe("IN-PROGRESS");
      // The prompt is playing.
      while (rtp.received.length < 25) await Bun.sleep(20);
      const speech = floatToInt16(concat(silence(0.3, RATE), letterToneAudio("نعم", RATE), silence(1.5, RATE)));
      const caller = rtp.audio(g711Payload(speech, "PCMU"), "PCMU");
      const started = await peer.event("START-OF-INPUT", recognize);
      const stopped = await peer.event("SPEAK-COMPLETE", speak);
      expect(stopped.headers["completion-cause"]).toBe("001 barge-in");
      expect(stopped.at).toBeGreaterThanOrEqual(started.at);
      await caller;
      const after = rtp.received.filter((p) => p.at > stopped.at).length;
      console.info(`barge-in: ${rtp.received.length} prompt packets, ${after} after SPEAK-COMPLETE`);
      expect(after).toBeLessThanOrEqual(1);
      const result = await peer.event("RECOGNITION-COMPLETE", recognize, 15_000);
      expect(result.headers["completion-cause"]).toBe("000 success");
      expect(result.body).toContain("<instance>نعم</instance>");
    } finally {
      const result = await sipp.done;
      rtp.close();
      peer.close();
      expectCleanRun(result);
    }
    expect(await waitForIdle(server)).toEqual({ sessions: 0, rtpPorts: 0 });
  }, 60_000);
});
