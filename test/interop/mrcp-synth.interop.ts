/**
 * Issue 36, acceptance 1: a real Sawt (the constructed tone voice) against peers from the
 * registries: SIPp sets the session up (INVITE with an RFC 6787 SDP offer, ACK, BYE), the npm
 * `mrcp` client SPEAKs an Arabic sentence over the channel the answer names, ffmpeg records the
 * RTP. The SDP answer names the MRCP port and `<id>@speechsynth`; IN-PROGRESS then SPEAK-COMPLETE
 * 000 normal; the recording is Sawt's REST `pcm` answer at 8 kHz through G.711, sample for sample;
 * BYE frees the session and its RTP port.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decodeG711, encodeG711 } from "../../src/audio/g711.ts";
import { bytesToInt16 } from "../../src/audio/wav.ts";
import type { MrcpSawt } from "../mrcp/support.ts";
import { MrcpPeer } from "./peers/mrcp-client.ts";
import { recordRtp, type G711 } from "./peers/rtp.ts";
import { runSipp } from "./peers/sipp.ts";
import { alignedOffset, expectCleanRun, freeEvenPort, mrcpGauges, startToneMrcpSawt, waitForIdle } from "./support.ts";

const TEXT = "مرحبا بكم في خدمة العملاء";
let server: MrcpSawt;

beforeAll(async () => {
  server = await startToneMrcpSawt({ voice: true });
}, 60_000);

afterAll(() => server?.close());

async function restPcm(encoding: string): Promise<Int16Array> {
  const response = await fetch(`${server.sawt.baseUrl}/v1/tts/audio/speech`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": server.key },
    body: JSON.stringify({ input: TEXT, voice: "Yara", response_format: "pcm", sample_rate: 8000, encoding }),
  });
  expect(response.status).toBe(200);
  return bytesToInt16(new Uint8Array(await response.arrayBuffer()));
}

describe("SIPp and the mrcp client against Sawt's synthesizer", () => {
  for (const codec of ["PCMU", "PCMA"] as const satisfies readonly G711[]) {
    test(`does SPEAK Arabic with 000 normal and send REST's pcm samples as ${codec}, then free the session on BYE`, async () => {
      const port = await freeEvenPort();
      const recorder = await recordRtp(port, codec);
      const offer = codec === "PCMU" ? "0 8" : "8 0";
      const sipp = runSipp({
        scenario: "session.xml",
        target: `127.0.0.1:${server.sipPort}`,
        rows: [[port, "speechsynth", offer]],
        holdMs: 6000,
      });
      const [call] = await sipp.calls(1);
      expect(call!.channel).toMatch(/^[0-9a-f]+@speechsynth$/);
      expect(Number(call!.mrcp)).toBe(server.mrcpPort);
      expect(Number(call!.pt)).toBe(codec === "PCMU" ? 0 : 8);
      // The IVR keeps its control connection until its BYE: a connection lost mid-session ends it.
      const peer = await MrcpPeer.open(Number(call!.mrcp));
      let result: Awaited<typeof sipp.done>;
      try {
        const id = peer.send("SPEAK", call!.channel!, { "content-type": "text/plain", "voice-name": "Yara" }, TEXT);
        const progress = await peer.response(id);
        expect(progress.status_code).toBe(200);
        expect(progress.request_state).toBe("IN-PROGRESS");
        const complete = await peer.event("SPEAK-COMPLETE", id, 20_000);
        expect(complete.request_state).toBe("COMPLETE");
        expect(complete.headers["completion-cause"]).toBe("000 normal");
        expect(complete.headers["channel-identifier"]).toBe(call!.channel!);
        await Bun.sleep(300);
      } finally {
        result = await sipp.done;
        peer.close();
      }
      const heard = await recorder.stop();
      const linear = await restPcm("pcm_s16le");
      const encoding = codec === "PCMU" ? "pcm_mulaw" : "pcm_alaw";
      // What G.711 keeps of REST's linear answer; ffmpeg's decoder must give exactly that.
      const quantised = decodeG711(encodeG711(linear, encoding), encoding);
      const offset = alignedOffset(heard, quantised, 0);
      expect(offset).not.toBeNaN();
      // Every sample arrived: nothing cut at the end.
      expect(heard.length - offset).toBeGreaterThanOrEqual(quantised.length);

      expectCleanRun(result);
      expect(result.successful).toBe(1);
      expect(result.failed).toBe(0);
      expect(await waitForIdle(server)).toEqual({ sessions: 0, rtpPorts: 0 });
      expect(await mrcpGauges(server.sawt.baseUrl)).toEqual({ sessions: 0, rtpPorts: 0 });
    }, 60_000);
  }
});
