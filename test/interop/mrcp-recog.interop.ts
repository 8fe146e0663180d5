/**
 * Issue 36, acceptances 2 and 7: a real Sawt (the constructed tone CTC recogniser) against peers
 * from the registries. SIPp sets up a speechrecog session (PCMU offered first), the npm `mrcp`
 * client RECOGNIZEs, ffmpeg streams the caller's audio as RTP PCMU in real time (or the dgram peer
 * plays RFC 4733 digits and RFC 3389 comfort noise). `builtin:speech/transcribe`, an inline SRGS
 * menu, a DEFINE-GRAMMAR'd one with semantic tags, `builtin:dtmf/digits`, no input, a caller
 * whose RTP stops after speech (and one that sends comfort noise instead), and a phrase finished
 * after a pause within Speech-Incomplete-Timeout. START-OF-INPUT comes before RECOGNITION-COMPLETE.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { floatToInt16 } from "../../src/audio/wav.ts";
import { concat, silence } from "../asr/support.ts";
import type { MrcpSawt } from "../mrcp/support.ts";
import { letterToneAudio } from "../support/models/ctc.ts";
import { type MrcpMessage, MrcpPeer } from "./peers/mrcp-client.ts";
import { g711Payload, RtpPeer, sendRtp } from "./peers/rtp.ts";
import { runSipp, type SippCall, type SippRun } from "./peers/sipp.ts";
import { expectCleanRun, freeEvenPort, startToneMrcpSawt, waitForIdle } from "./support.ts";

const RATE = 8000;
let server: MrcpSawt;

beforeAll(async () => {
  server = await startToneMrcpSawt({ recogniser: true });
}, 60_000);

afterAll(() => server?.close());

/** 8 kHz linear PCM of `text` in the tone code after `lead` s of silence, then `tail` s of it. */
function utterance(text: string, lead = 0.5, tail = 1.5): Int16Array {
  return floatToInt16(concat(silence(lead, RATE), letterToneAudio(text, RATE), silence(tail, RATE)));
}

/**
 * A SIPp speechrecog session held for `holdMs` (about twice what a test needs, so a loaded machine
 * still finishes inside it), and the mrcp client on its channel.
 */
async function recogSession(holdMs = 7000): Promise<{ call: SippCall; peer: MrcpPeer; sipp: SippRun }> {
  const port = await freeEvenPort();
  const sipp = runSipp({
    scenario: "session.xml",
    target: `127.0.0.1:${server.sipPort}`,
    rows: [[port, "speechrecog", "0 8"]],
    holdMs,
  });
  const [call] = await sipp.calls(1);
  expect(call!.channel).toMatch(/@speechrecog$/);
  return { call: call!, peer: await MrcpPeer.open(Number(call!.mrcp)), sipp };
}

/** Ends the session with SIPp's BYE; checks SIPp saw a clean call and Sawt freed everything. */
async function hangUp(session: { peer: MrcpPeer; sipp: SippRun }): Promise<void> {
  const result = await session.sipp.done;
  session.peer.close();
  expectCleanRun(result);
  expect(await waitForIdle(server)).toEqual({ sessions: 0, rtpPorts: 0 });
}

/** RECOGNIZE with `headers` and body; expects 200 IN-PROGRESS; returns its id. */
async function recognize(peer: MrcpPeer, channel: string, headers: Record<string, string>, body: string) {
  const id = peer.send("RECOGNIZE", channel, headers, body);
  const response = await peer.response(id);
  expect(`${response.status_code} ${response.request_state}`).toBe("200 IN-PROGRESS");
  return id;
}

/** START-OF-INPUT (when `started`) then RECOGNITION-COMPLETE of request `id`. */
async function completion(peer: MrcpPeer, id: number, started = true): Promise<MrcpMessage> {
  const complete = await peer.event("RECOGNITION-COMPLETE", id, 20_000);
  const start = peer.inbox.find((m) => m.event_name === "START-OF-INPUT" && m.request_id === id);
  if (started) {
    expect(start).toBeDefined();
    expect(start!.at).toBeLessThanOrEqual(complete.at);
  } else expect(start).toBeUndefined();
  return complete;
}

const TRANSCRIBE = { "content-type": "text/uri-list" };

const MENU = `<?xml version="1.0" encoding="UTF-8"?>
<grammar xmlns="http://www.w3.org/2001/06/grammar" xml:lang="ar-SA" version="1.0" mode="voice" root="menu" tag-format="semantics/1.0">
  <rule id="menu" scope="public">
    <one-of>
      <item>حساب<tag>out="account";</tag></item>
      <item>تحويل<tag>out="transfer";</tag></item>
      <item>سداد<tag>out="payment";</tag></item>
    </one-of>
  </rule>
</grammar>`;

describe("SIPp, the mrcp client and ffmpeg RTP against Sawt's recogniser", () => {
  test("does answer builtin:speech/transcribe with the transcript in NLSML after START-OF-INPUT", async () => {
    const session = await recogSession();
    const id = await recognize(session.peer, session.call.channel!, TRANSCRIBE, "builtin:speech/transcribe");
    await sendRtp(utterance("سلام عليكم"), Number(session.call.audio), "PCMU");
    const complete = await completion(session.peer, id);
    expect(complete.headers["completion-cause"]).toBe("000 success");
    expect(complete.headers["content-type"]).toBe("application/nlsml+xml");
    expect(complete.body).toContain('<result xmlns="urn:ietf:params:xml:ns:mrcpv2"');
    expect(complete.body).toMatch(/<interpretation grammar="builtin:speech\/transcribe" confidence="[01]\.\d{2}">/);
    expect(complete.body).toContain("<instance>سلام عليكم</instance>");
    expect(complete.body).toMatch(/<input mode="speech"[^>]*>سلام عليكم<\/input>/);
    await hangUp(session);
  }, 60_000);

  test("does match an inline SRGS menu of Arabic items", async () => {
    const session = await recogSession();
    const id = await recognize(session.peer, session.call.channel!, { "content-type": "application/srgs+xml" }, MENU);
    await sendRtp(utterance("تحويل"), Number(session.call.audio), "PCMU");
    const complete = await completion(session.peer, id);
    expect(complete.headers["completion-cause"]).toBe("000 success");
    expect(complete.body).toContain("<instance>transfer</instance>");
    expect(complete.body).toMatch(/<input mode="speech"[^>]*>تحويل<\/input>/);
    await hangUp(session);
  }, 60_000);

  test("does match a DEFINE-GRAMMAR'd menu named by its session: URI", async () => {
    const session = await recogSession();
    const { peer, call } = session;
    const defined = peer.send(
      "DEFINE-GRAMMAR",
      call.channel!,
      { "content-type": "application/srgs+xml; charset=UTF-8", "content-id": "<menu@form-level>" },
      MENU,
    );
    const answer = await peer.response(defined);
    expect(`${answer.status_code} ${answer.request_state}`).toBe("200 COMPLETE");
    expect(answer.headers["completion-cause"]).toBe("000 success");
    const id = await recognize(peer, call.channel!, TRANSCRIBE, "session:menu@form-level");
    await sendRtp(utterance("سداد"), Number(call.audio), "PCMU");
    const complete = await completion(peer, id);
    expect(complete.headers["completion-cause"]).toBe("000 success");
    expect(complete.body).toContain('grammar="session:menu@form-level"');
    expect(complete.body).toContain("<instance>payment</instance>");
    await hangUp(session);
  }, 60_000);

  test("does give RFC 4733 digits for builtin:dtmf/digits with input mode dtmf", async () => {
    const session = await recogSession();
    const { peer, call } = session;
    const id = await recognize(peer, call.channel!, TRANSCRIBE, "builtin:dtmf/digits?length=4");
    const rtp = await RtpPeer.open(Number(call.rtp), Number(call.audio));
    try {
      await rtp.digits("4071");
    } finally {
      rtp.close();
    }
    const complete = await completion(peer, id);
    expect(complete.headers["completion-cause"]).toBe("000 success");
    expect(complete.body).toMatch(/<input mode="dtmf"[^>]*>4071<\/input>/);
    await hangUp(session);
  }, 60_000);

  test("does complete with no-input-timeout when the caller is silent", async () => {
    const session = await recogSession();
    const id = await recognize(
      session.peer,
      session.call.channel!,
      { ...TRANSCRIBE, "no-input-timeout": "1500" },
      "builtin:speech/transcribe",
    );
    await sendRtp(floatToInt16(silence(2.5, RATE)), Number(session.call.audio), "PCMU");
    const complete = await completion(session.peer, id, false);
    expect(complete.headers["completion-cause"]).toBe("002 no-input-timeout");
    await hangUp(session);
  }, 60_000);

  test("does answer 000 success, not 008, when the caller's RTP stops right after speech", async () => {
    const session = await recogSession();
    const id = await recognize(
      session.peer,
      session.call.channel!,
      { ...TRANSCRIBE, "speech-complete-timeout": "800", "recognition-timeout": "10000" },
      "builtin:speech/transcribe",
    );
    // A prompt-sized file and nothing after it: ffmpeg ends with the speech's last packet.
    await sendRtp(utterance("سلام عليكم", 0.5, 0), Number(session.call.audio), "PCMU");
    const lastPacket = performance.now();
    const complete = await completion(session.peer, id);
    expect(complete.headers["completion-cause"]).toBe("000 success");
    expect(complete.body).toContain("<instance>سلام عليكم</instance>");
    const afterLast = complete.at - lastPacket;
    console.info(
      `RTP stopped: RECOGNITION-COMPLETE ${Math.round(afterLast)} ms after the last packet (Speech-Complete-Timeout 800)`,
    );
    expect(afterLast).toBeLessThan(10_000);
    await hangUp(session);
  }, 60_000);

  test("does answer 000 success when the caller sends comfort noise after speech", async () => {
    const session = await recogSession();
    const { peer, call } = session;
    const id = await recognize(peer, call.channel!, TRANSCRIBE, "builtin:speech/transcribe");
    const rtp = await RtpPeer.open(Number(call.rtp), Number(call.audio));
    try {
      await rtp.audio(g711Payload(utterance("سلام عليكم", 0.5, 0), "PCMU"), "PCMU");
      const noise = rtp.comfortNoise(4000);
      const complete = await completion(peer, id);
      await noise;
      expect(complete.headers["completion-cause"]).toBe("000 success");
      expect(complete.body).toContain("<instance>سلام عليكم</instance>");
    } finally {
      rtp.close();
    }
    await hangUp(session);
  }, 60_000);

  test("does wait Speech-Incomplete-Timeout for the rest of a phrase the caller paused in", async () => {
    const grammar = MENU.replace("<item>حساب<tag>", "<item>حساب توفير<tag>");
    for (const [incomplete, cause, instance] of [
      ["2500", "000 success", "<instance>account</instance>"],
      ["800", "001 no-match", undefined],
    ] as const) {
      const session = await recogSession(10_000);
      const id = await recognize(
        session.peer,
        session.call.channel!,
        {
          "content-type": "application/srgs+xml",
          "speech-complete-timeout": "800",
          "speech-incomplete-timeout": incomplete,
        },
        grammar,
      );
      const pcm = floatToInt16(
        concat(
          silence(0.5, RATE),
          letterToneAudio("حساب", RATE),
          silence(1.3, RATE),
          letterToneAudio("توفير", RATE),
          silence(1.5, RATE),
        ),
      );
      await sendRtp(pcm, Number(session.call.audio), "PCMU");
      const complete = await completion(session.peer, id);
      expect(complete.headers["completion-cause"]).toBe(cause);
      if (instance) expect(complete.body).toContain(instance);
      await hangUp(session);
    }
  }, 90_000);
});
