/**
 * An MRCP session as an IVR opens one, for the fuzzer and the soak: INVITE with an offer over UDP,
 * ACK, the channel ids, MRCP and RTP ports from the answer, a local RTP socket that receives
 * (and discards) what the box sends, and a BYE at the end.
 */
import { createSocket, type Socket } from "node:dgram";
import { offer } from "../../mrcp/client.ts";
import type { Random } from "../fuzz/random.ts";
import { UdpSipPeer } from "./sip-peers.ts";
import { draft, write } from "./sip-wire.ts";

/** An open session. */
export interface MrcpSessionPeer {
  readonly synth: string | undefined;
  readonly recog: string | undefined;
  readonly mrcpPort: number;
  /** The box's RTP port for this session. */
  readonly audioPort: number;
  /** Our RTP socket (the offer's port); `received` counts the box's packets. */
  readonly rtp: Socket;
  received: number;
  /** Ends the session with a BYE; resolves its status (0: no answer). */
  bye(): Promise<number>;
  /** Walks away without a BYE (the box's timers must end the session). */
  drop(): void;
}

/** Opens a session for `resources` with `codecs`; undefined when the box refused it (status). */
export async function openSession(
  sipPort: number,
  random: Random,
  resources: readonly string[],
  codecs = "0 8 101",
): Promise<MrcpSessionPeer | { refused: number }> {
  const rtp = createSocket("udp4");
  rtp.on("error", () => {});
  await new Promise<void>((resolve) => rtp.bind(0, "127.0.0.1", () => resolve()));
  const sip = await UdpSipPeer.open(sipPort);
  const d = draft(random, "INVITE", {
    from: sip.from,
    sipPort,
    transport: "UDP",
    body: offer(resources, rtp.address().port, codecs),
  });
  const invite = Buffer.from(write(d));
  const callId = d.headers.find(([k]) => k === "Call-ID")![1];
  sip.send(invite);
  const answer = await sip.final(callId, "INVITE", 5000, () => sip.send(invite));
  if (answer?.status !== 200) {
    sip.close();
    rtp.close();
    return { refused: answer?.status ?? 0 };
  }
  const toTag = /tag=([^;\s]+)/.exec(answer.header("To") ?? "")?.[1];
  const inDialog = (method: string, cseq: number) => {
    const next = draft(random, method, { from: sip.from, sipPort, transport: "UDP" });
    for (const name of ["From", "Call-ID"])
      next.headers.find(([k]) => k === name)![1] = d.headers.find(([k]) => k === name)![1];
    next.headers.find(([k]) => k === "To")![1] = `<sip:sawt@127.0.0.1:${sipPort}>;tag=${toTag}`;
    next.headers.find(([k]) => k === "CSeq")![1] = `${cseq} ${method}`;
    return Buffer.from(write(next));
  };
  const cseq = Number(d.headers.find(([k]) => k === "CSeq")![1].split(" ")[0]);
  sip.send(inDialog("ACK", cseq));
  const channels = [...answer.text.matchAll(/a=channel:(\S+)/g)].map((m) => m[1]!);
  const session: MrcpSessionPeer = {
    synth: channels.find((c) => c.endsWith("@speechsynth")),
    recog: channels.find((c) => c.endsWith("@speechrecog")),
    mrcpPort: Number(/m=application (\d+)/.exec(answer.text)?.[1] ?? 0),
    audioPort: Number(/m=audio (\d+)/.exec(answer.text)?.[1] ?? 0),
    rtp,
    received: 0,
    async bye() {
      const bye = inDialog("BYE", cseq + 1);
      sip.send(bye);
      const done = await sip.final(callId, "BYE", 3000, () => sip.send(bye));
      sip.close();
      rtp.close();
      return done?.status ?? 0;
    },
    drop() {
      sip.close();
      rtp.close();
    },
  };
  rtp.on("message", () => session.received++);
  return session;
}
