/**
 * The SIP door fuzzed over UDP and over TCP: every method the box serves and others (INVITE with a
 * valid offer, OPTIONS, out-of-dialog BYE, CANCEL and ACK, REGISTER/INFO/…, unknown ones), each
 * well-formed or broken (./sip-wire.ts: start lines, headers, folding, Content-Length lies,
 * truncation, huge messages, bytes), and retransmission storms of one request. Contract: every
 * message from the box is a SIP response with a status the door answers and the headers it copies
 * (or its own BYE), an ACK is never answered, a well-formed request always gets its final answer,
 * a storm of one INVITE opens one dialog (every 200 the same To tag), and over TCP a broken stream
 * may be closed but a healthy connection never is. A 200 to an INVITE is ACKed and, mostly, ended
 * with a BYE; the rest are left to the idle timeout, which the leak check then proves.
 */
import { offer } from "../../mrcp/client.ts";
import type { Box } from "../box.ts";
import type { Random } from "../fuzz/random.ts";
import { type DoorPlan, type DoorTally, type FuzzDoor, inWorkers, newTally } from "./door.ts";
import { type SipPeer, TcpSipPeer, UdpSipPeer } from "./sip-peers.ts";
import {
  answerProblems,
  callIdOf,
  draft,
  escaped,
  mutate,
  readAnswer,
  type SipAnswer,
  type SipCase,
  type SipDraft,
  token,
  write,
} from "./sip-wire.ts";

const METHODS = ["INVITE", "INVITE", "OPTIONS", "OPTIONS", "BYE", "CANCEL", "ACK", "REGISTER", "INFO", "FOO"];

type Tally = ReturnType<typeof newTally>;

/** Checks everything the peer received since the last check; the ACK rule needs the Call-IDs of ACKs sent. */
function check(peer: SipPeer, tally: Tally, acks: Set<string>, sent?: Uint8Array): void {
  for (const text of peer.drain()) {
    for (const problem of answerProblems(text))
      tally.breach(sent ? `${problem} ← ${escaped(Buffer.from(sent).toString("utf8").slice(0, 600))}` : problem);
    const answer = readAnswer(text);
    if (answer) {
      tally.see(`sip ${answer.status}`);
      const callId = answer.header("Call-ID");
      if (callId && acks.has(callId) && / ACK$/.test(answer.header("CSeq") ?? ""))
        tally.breach(`${answer.status} answered an ACK`);
    }
  }
}

/** ACKs a 200 and ends the dialog with a BYE, or (sometimes) leaves it to the idle timeout. */
async function endDialog(peer: SipPeer, d: SipDraft, answer: SipAnswer, random: Random, tally: Tally): Promise<void> {
  const toTag = /tag=([^;\s]+)/.exec(answer.header("To") ?? "")?.[1];
  const set = (name: string, value: string) => {
    const h = d.headers.find(([k]) => k === name);
    if (h) h[1] = value;
  };
  const cseq = Number((d.headers.find(([k]) => k === "CSeq")?.[1] ?? "1").split(" ")[0]);
  set("To", `${d.headers.find(([k]) => k === "To")![1]};tag=${toTag}`);
  set("Via", d.headers.find(([k]) => k === "Via")![1].replace(/branch=[^;]+/, `branch=z9hG4bK${token(random)}`));
  set("CSeq", `${cseq} ACK`);
  set("Content-Length", "0");
  const withoutType = d.headers.filter(([k]) => k !== "Content-Type");
  peer.send(Buffer.from(write({ ...d, method: "ACK", headers: withoutType, body: "" })));
  if (random.chance(0.15)) return void tally.see("dialog left to the idle timeout");
  set("Via", d.headers.find(([k]) => k === "Via")![1].replace(/branch=[^;]+/, `branch=z9hG4bK${token(random)}`));
  set("CSeq", `${cseq + 1} BYE`);
  const bye = Buffer.from(
    write({ ...d, method: "BYE", headers: d.headers.filter(([k]) => k !== "Content-Type"), body: "" }),
  );
  peer.send(bye);
  const done = await peer.final(d.headers.find(([k]) => k === "Call-ID")![1], "BYE", 3000, () => peer.send(bye));
  if (!done) tally.breach("no answer to the BYE of an open dialog");
  else if (done.status !== 200) tally.breach(`BYE of an open dialog answered ${done.status}`);
}

/** One case on `peer`: a request, or a storm of one; waits for what the contract says must come. */
async function sipCase(
  box: Box,
  peer: SipPeer,
  transport: "UDP" | "TCP",
  random: Random,
  tally: Tally,
  acks: Set<string>,
  pristine: number,
  last: { bytes?: Uint8Array } = {},
) {
  const method = random.pick(METHODS);
  const body = method === "INVITE" ? offer(["speechsynth"], 40000 + 2 * random.int(0, 999)) : "";
  const d = draft(random, method, {
    from: peer.from,
    sipPort: box.sipPort,
    transport,
    body,
    toTag: method === "BYE" ? token(random) : undefined,
  });
  const storm = transport === "UDP" && random.chance(0.08);
  const c: SipCase = storm
    ? { label: "retransmission storm", bytes: Buffer.from(write(d)), method, callId: callIdOf(d), wellFormed: true }
    : mutate(d, random, pristine);
  tally.see(c.label);
  last.bytes = c.bytes;
  if (c.method === "ACK" && c.callId) acks.add(c.callId);
  const times = storm ? random.int(5, 40) : 1;
  for (let i = 0; i < times; i++) peer.send(c.bytes);
  if (!c.wellFormed || c.method === "ACK" || !c.callId) {
    await Bun.sleep(c.method === "ACK" && c.wellFormed ? 100 : 5);
    return;
  }
  const answer = await peer.final(c.callId, c.method, 4000, () => peer.send(c.bytes));
  if (!answer) return void tally.breach(`no final answer to a well-formed ${c.method}`);
  if (storm) {
    // Every retransmission is answered with the same response: one dialog, one To tag.
    await Bun.sleep(100);
    for (;;) {
      const again = await peer.final(c.callId, c.method, 0);
      if (!again) break;
      if (again.header("To") !== answer.header("To")) tally.breach("a retransmitted INVITE got a second dialog");
    }
  }
  if (c.method === "INVITE" && answer.status === 200) await endDialog(peer, d, answer, random, tally);
}

async function runUdp(box: Box, plan: DoorPlan): Promise<DoorTally> {
  const tally = newTally();
  await inWorkers(plan, async (random, cases) => {
    const peer = await UdpSipPeer.open(box.sipPort);
    const acks = new Set<string>();
    const last: { bytes?: Uint8Array } = {};
    try {
      for (let i = 0; i < cases; i++) {
        await sipCase(box, peer, "UDP", random, tally, acks, 0.25, last);
        check(peer, tally, acks, last.bytes);
        tally.cases++;
      }
      await Bun.sleep(200);
      check(peer, tally, acks);
    } finally {
      peer.close();
    }
  });
  return tally;
}

async function runTcp(box: Box, plan: DoorPlan): Promise<DoorTally> {
  const tally = newTally();
  await inWorkers(plan, async (random, cases) => {
    let healthy = await TcpSipPeer.open(box.sipPort);
    const acks = new Set<string>();
    try {
      for (let i = 0; i < cases; i++) {
        const broken = random.chance(0.6);
        if (!broken) {
          // Well-formed requests on a connection that has stayed healthy: split writes and
          // keep-alive CRLFs included. The box must answer and must not close it.
          if (random.chance(0.1)) healthy.send(Buffer.from("\r\n\r\n"));
          await sipCase(box, healthy, "TCP", random, tally, acks, 1);
          check(healthy, tally, acks);
          if (healthy.closed) {
            tally.breach("the box closed a healthy SIP connection");
            healthy = await TcpSipPeer.open(box.sipPort);
          }
        } else {
          // Anything at all on a throwaway connection: answers are checked, a close is allowed.
          const peer = await TcpSipPeer.open(box.sipPort);
          const d = draft(random, random.pick(METHODS), { from: peer.from, sipPort: box.sipPort, transport: "TCP" });
          const c = mutate(d, random, 0);
          tally.see(`tcp ${c.label}`);
          const cut = random.int(1, Math.max(1, c.bytes.length - 1));
          peer.send(c.bytes.subarray(0, cut));
          if (random.chance(0.3)) await Bun.sleep(random.int(1, 20));
          peer.send(c.bytes.subarray(cut));
          tally.see((await peer.closedWithin(random.pick([20, 60, 150]))) ? "tcp closed by the box" : "tcp left open");
          check(peer, tally, acks);
          peer.close();
        }
        tally.cases++;
      }
    } finally {
      healthy.close();
    }
  });
  return tally;
}

/** SIP over UDP. */
export const sipUdpDoor: FuzzDoor = {
  name: "SIP over UDP",
  covers:
    "every method, start lines, headers, folding, compact forms, Content-Length lies, truncated and huge datagrams, bytes, out-of-dialog BYE/CANCEL/ACK, retransmission storms",
  run: runUdp,
  settleMs: 6000,
};

/** SIP over TCP. */
export const sipTcpDoor: FuzzDoor = {
  name: "SIP over TCP",
  covers:
    "the same messages over a healthy connection (split writes, keep-alive CRLFs) and anything at all on throwaway ones (framing lies, truncation, huge heads)",
  run: runTcp,
  settleMs: 6000,
};
