/**
 * The soak's MRCP rows, as an IVR calls: a session SPEAKs a prompt to its end (SPEAK-COMPLETE
 * 000 normal, RTP received) and hangs up; a session RECOGNIZEs a caller's word sent as RTP
 * (RECOGNITION-COMPLETE 000 success with the word) and hangs up.
 */
import { encodeG711 } from "../../../src/audio/g711.ts";
import { floatToInt16 } from "../../../src/audio/wav.ts";
import { buildRtp } from "../../../src/media/rtp-packet.ts";
import { concat, silence } from "../../asr/support.ts";
import { letterToneAudio } from "../../support/models/ctc.ts";
import type { Box } from "../box.ts";
import { openSession, type MrcpSessionPeer } from "../doors/mrcp-session.ts";
import { MrcpLink, request } from "../doors/mrcp-wire.ts";
import { Random } from "../fuzz/random.ts";
import { Breach, type SoakRow } from "./row.ts";

/** The caller's word as 20 ms μ-law payloads. */
const WORD = (() => {
  const codes = encodeG711(
    floatToInt16(concat(silence(0.3, 8000), letterToneAudio("مرحبا", 8000), silence(1.5, 8000))),
    "pcm_mulaw",
  );
  const packets: Uint8Array[] = [];
  for (let at = 0; at < codes.length; at += 160) packets.push(codes.subarray(at, at + 160));
  return packets;
})();

async function withSession(
  box: Box,
  i: number,
  resources: string[],
  body: (session: MrcpSessionPeer, link: MrcpLink) => Promise<string>,
): Promise<string> {
  const session = await openSession(box.sipPort, new Random(i + 1), resources, "0 101");
  if ("refused" in session) {
    if (session.refused === 503) return "busy";
    throw new Breach(`INVITE answered ${session.refused}`);
  }
  const link = await MrcpLink.open(session.mrcpPort);
  try {
    return await body(session, link);
  } finally {
    // Hang up first, as an IVR does: closing the control connection alone ends the session too.
    const bye = await session.bye();
    link.close();
    if (bye !== 200) throw new Breach(`BYE answered ${bye}`);
  }
}

export const mrcpSynth: SoakRow = {
  name: "MRCP synth",
  call: (box, i) =>
    withSession(box, i, ["speechsynth"], async (session, link) => {
      link.send(
        request(
          "SPEAK",
          1,
          [
            ["Channel-Identifier", session.synth!],
            ["Content-Type", "text/plain"],
          ],
          `مرحبا ${i % 10}`,
        ),
      );
      const started = await link.take((m) => m.kind === "response" && m.requestId === 1, 10_000);
      if (started?.status !== 200) throw new Breach(`SPEAK answered ${started?.status ?? "nothing"}`);
      const complete = await link.take((m) => m.name === "SPEAK-COMPLETE", 30_000);
      const cause = complete?.header("Completion-Cause");
      if (cause !== "000 normal") throw new Breach(`SPEAK-COMPLETE ${cause ?? "never came"}`);
      if (session.received === 0) throw new Breach("SPEAK completed without RTP");
      return "000 normal";
    }),
};

export const mrcpRecog: SoakRow = {
  name: "MRCP recog",
  call: (box, i) =>
    withSession(box, i, ["speechrecog"], async (session, link) => {
      link.send(
        request(
          "RECOGNIZE",
          1,
          [
            ["Channel-Identifier", session.recog!],
            ["Content-Type", "text/uri-list"],
            ["No-Input-Timeout", "10000"],
          ],
          "builtin:speech/transcribe",
        ),
      );
      const started = await link.take((m) => m.kind === "response" && m.requestId === 1, 10_000);
      if (started?.state !== "IN-PROGRESS") throw new Breach(`RECOGNIZE answered ${started?.status ?? "nothing"}`);
      const ssrc = 1000 + i;
      for (const [seq, payload] of WORD.entries()) {
        session.rtp.send(
          buildRtp({ payloadType: 0, marker: seq === 0, sequence: seq, timestamp: seq * 160, ssrc }, payload),
          session.audioPort,
          "127.0.0.1",
        );
        if (seq % 5 === 4) await Bun.sleep(20);
      }
      const complete = await link.take((m) => m.name === "RECOGNITION-COMPLETE", 30_000);
      const cause = complete?.header("Completion-Cause");
      if (cause !== "000 success" || !complete?.text.includes("<instance>مرحبا</instance>"))
        throw new Breach(`RECOGNITION-COMPLETE ${cause ?? "never came"} ${complete?.text.slice(-120) ?? ""}`);
      return "000 success";
    }),
};
