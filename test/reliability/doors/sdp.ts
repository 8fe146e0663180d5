/**
 * SDP offers fuzzed through well-formed INVITEs over UDP (./sdp-cases.ts). Contract: the final
 * answer is 200, 400 (an offer Sawt cannot read), 415 (not application/sdp), 413 (over 8 KiB), 488
 * (nothing Sawt serves) or 503 (sessions or RTP ports exhausted); a 200's answer has one section
 * per offered one, audio only on the box's RTP range, and no audio stream towards an address
 * outside the allowed networks. Every 200 is ACKed and mostly ended with a BYE, the rest left to
 * the idle timeout (the leak check proves they go).
 */
import type { Box } from "../box.ts";
import { type DoorPlan, type DoorTally, type FuzzDoor, inWorkers, newTally } from "./door.ts";
import { answerSdpProblems, drawOffer } from "./sdp-cases.ts";
import { UdpSipPeer } from "./sip-peers.ts";
import { answerProblems, callIdOf, draft, write } from "./sip-wire.ts";

const STATUSES = new Set([200, 400, 413, 415, 488, 503]);

async function run(box: Box, plan: DoorPlan): Promise<DoorTally> {
  const tally = newTally();
  await inWorkers(plan, async (random, cases) => {
    const peer = await UdpSipPeer.open(box.sipPort);
    try {
      for (let i = 0; i < cases; i++) {
        const sdp = drawOffer(random, 40000 + 2 * random.int(0, 999));
        tally.see(sdp.label);
        const d = draft(random, "INVITE", { from: peer.from, sipPort: box.sipPort, transport: "UDP", body: sdp.body });
        const type = d.headers.find(([k]) => k === "Content-Type");
        if (type) type[1] = sdp.contentType;
        const bytes = Buffer.from(write(d));
        const callId = callIdOf(d)!;
        // Over 8 KiB the request outgrows the SIP bounds too: 413 or 513 are both its answer.
        peer.send(bytes);
        const answer = await peer.final(callId, "INVITE", 4000, () => peer.send(bytes));
        tally.cases++;
        for (const text of peer.drain()) for (const problem of answerProblems(text)) tally.breach(problem);
        if (!answer) {
          tally.breach(`no final answer to an INVITE (${sdp.label})`);
          continue;
        }
        tally.see(`sip ${answer.status}`);
        if (!STATUSES.has(answer.status) && !(answer.status === 513 && sdp.label === "over 8 KiB"))
          tally.breach(`INVITE with ${sdp.label} answered ${answer.status}`);
        if (answer.status !== 200) continue;
        for (const problem of answerSdpProblems(
          sdp.body,
          answer.text.slice(answer.text.indexOf("\r\n\r\n") + 4),
          box.rtp,
        ))
          tally.breach(`${sdp.label}: ${problem}`);
        const toTag = /tag=([^;\s]+)/.exec(answer.header("To") ?? "")?.[1];
        const inDialog = (method: string, cseq: number) => {
          const next = draft(random, method, { from: peer.from, sipPort: box.sipPort, transport: "UDP" });
          for (const name of ["From", "Call-ID"])
            next.headers.find(([k]) => k === name)![1] = d.headers.find(([k]) => k === name)![1];
          next.headers.find(([k]) => k === "To")![1] = `<sip:sawt@127.0.0.1:${box.sipPort}>;tag=${toTag}`;
          next.headers.find(([k]) => k === "CSeq")![1] = `${cseq} ${method}`;
          return Buffer.from(write(next));
        };
        const cseq = Number(d.headers.find(([k]) => k === "CSeq")![1].split(" ")[0]);
        peer.send(inDialog("ACK", cseq));
        if (random.chance(0.15)) {
          tally.see("session left to the idle timeout");
          continue;
        }
        const bye = inDialog("BYE", cseq + 1);
        peer.send(bye);
        const ended = await peer.final(callId, "BYE", 3000, () => peer.send(bye));
        if (ended?.status !== 200) tally.breach(`BYE of a session answered ${ended?.status ?? "nothing"}`);
      }
    } finally {
      await Bun.sleep(100);
      for (const text of peer.drain()) for (const problem of answerProblems(text)) tally.breach(problem);
      peer.close();
    }
  });
  return tally;
}

/** SDP offers. */
export const sdpDoor: FuzzDoor = {
  name: "SDP offers",
  covers:
    "valid offers and ones with lines missing, contradictory addresses, host names and addresses off the box, unknown codecs and resources, odd ports and port ranges, over the bounds",
  run,
  settleMs: 6000,
};
