/**
 * RTP fuzzed at a recognising session (issue 39): the contract is that packets from an unexpected
 * address or SSRC are dropped and counted, and nothing else changes. Each worker opens a session
 * with a DTMF RECOGNIZE running, latches its stream with one packet and keeps it alive, then sends
 * cases: RFC 4733 digits from another host or with another SSRC (dropped, counted as address or
 * ssrc), datagrams that are not RTP from either (counted as address or malformed), oversized ones,
 * and packets of its own stream the box must take quietly (sequence and timestamp jumps, unknown
 * payload types, CSRCs, extensions, padding, oversized audio). Checked: not one digit reaches the
 * recogniser (no START-OF-INPUT, no RECOGNITION-COMPLETE), and `sawt_mrcp_rtp_stray_total` grew
 * by exactly what was sent per reason, less what the kernel dropped (the socket's drops in
 * /proc/<pid>/net/udp), which is checked too.
 */
import { createSocket, type Socket } from "node:dgram";
import { buildRtp } from "../../../src/media/rtp-packet.ts";
import type { Box } from "../box.ts";
import type { Random } from "../fuzz/random.ts";
import { socketsOf } from "../probes.ts";
import { type DoorPlan, type DoorTally, type FuzzDoor, inWorkers, newTally } from "./door.ts";
import { openSession } from "./mrcp-session.ts";
import { MrcpLink, messageProblems, request } from "./mrcp-wire.ts";

type Reason = "address" | "ssrc" | "malformed";
type Tally = ReturnType<typeof newTally>;

async function strays(box: Box): Promise<Record<Reason, number>> {
  const metrics = await box.metrics();
  const of = (reason: Reason) => metrics.get(`sawt_mrcp_rtp_stray_total{reason="${reason}"}`) ?? 0;
  return { address: of("address"), ssrc: of("ssrc"), malformed: of("malformed") };
}

/** Bytes that are not an RTP packet (wrong version, or shorter than a header). */
function notRtp(random: Random, length: number): Uint8Array {
  const bytes = random.bytes(length);
  if (length >= 12) bytes[0] = (bytes[0]! & 0x3f) | random.pick([0x00, 0x40, 0xc0]);
  return bytes;
}

async function bind(address: string): Promise<Socket> {
  const socket = createSocket("udp4");
  socket.on("error", () => {});
  await new Promise<void>((resolve) => socket.bind(0, address, () => resolve()));
  return socket;
}

async function worker(
  box: Box,
  random: Random,
  cases: number,
  index: number,
  tally: Tally,
  expected: Record<Reason, number>,
  kernel: { drops: number },
) {
  const session = await openSession(box.sipPort, random, ["speechrecog"], "0 101");
  if ("refused" in session) return void tally.breach(`INVITE for an RTP session answered ${session.refused}`);
  const stranger = await bind(`127.0.0.${2 + (index % 200)}`);
  const link = await MrcpLink.open(session.mrcpPort);
  const channel = session.recog!;
  link.send(
    request(
      "RECOGNIZE",
      1,
      [
        ["Channel-Identifier", channel],
        ["Content-Type", "text/uri-list"],
        ["No-Input-Timeout", "600000"],
      ],
      "builtin:dtmf/digits?length=5",
    ),
  );
  const started = await link.take((m) => m.kind === "response" && m.requestId === 1, 5000);
  if (started?.state !== "IN-PROGRESS") tally.breach(`RECOGNIZE answered ${started?.status ?? "nothing"}`);
  const ssrc = random.int(1, 2 ** 31);
  let sequence = random.int(0, 60000);
  let timestamp = random.int(0, 2 ** 30);
  const send = (socket: Socket, bytes: Uint8Array) => socket.send(bytes, session.audioPort, "127.0.0.1");
  const own = (fields: Partial<{ payloadType: number; ssrc: number; marker: boolean }>, payload: Uint8Array) => {
    sequence = (sequence + 1) & 0xffff;
    timestamp = (timestamp + 160) >>> 0;
    return buildRtp({ payloadType: 0, marker: false, sequence, timestamp, ssrc, ...fields }, payload);
  };
  const silence = new Uint8Array(160).fill(0xff);
  const digit = (key: number) => Uint8Array.of(key, 0x8a, 0, 160);
  send(session.rtp, own({}, silence)); // latches the stream's SSRC
  const keepAlive = setInterval(() => send(session.rtp, own({}, silence)), 200);
  // Each packet with another SSRC follows one of the stream's own, so the latched source is fresh
  // when the box reads it even after a stall (it takes a new SSRC after 1 s of silence, by design).
  const latched = () => send(session.rtp, own({}, silence));
  const CASES: Record<string, () => Reason | undefined> = {
    "digit from another host": () => (
      send(stranger, own({ payloadType: 101, marker: true }, digit(random.int(0, 15)))), "address"
    ),
    "digit with another SSRC": () => (
      latched(),
      send(session.rtp, own({ payloadType: 101, ssrc: ssrc ^ random.int(1, 2 ** 30) }, digit(random.int(0, 15)))),
      "ssrc"
    ),
    "audio with another SSRC": () => (latched(), send(session.rtp, own({ ssrc: ssrc + 1 }, silence)), "ssrc"),
    "not RTP": () => (send(session.rtp, notRtp(random, random.int(0, 300))), "malformed"),
    "not RTP, oversized": () => (send(session.rtp, notRtp(random, random.int(1500, 60000))), "malformed"),
    "not RTP from another host": () => (send(stranger, notRtp(random, random.int(0, 300))), "address"),
    "bad padding": () => {
      const packet = own({}, silence);
      packet[0]! |= 0x20;
      packet[packet.length - 1] = 255;
      send(session.rtp, packet);
      return "malformed";
    },
    "sequence jump": () => {
      sequence = (sequence + random.int(2, 30000)) & 0xffff;
      timestamp = (timestamp + random.int(0, 2 ** 30)) >>> 0;
      return void send(session.rtp, own({ marker: random.chance(0.5) }, silence));
    },
    "unknown payload type": () =>
      void send(session.rtp, own({ payloadType: random.pick([8, 13, 96, 99, 127]) }, random.bytes(random.int(0, 200)))),
    "CSRCs and extension": () => {
      const packet = own({}, Uint8Array.of(0, 0, 0, 1, 0, 0, 0, 2, 0xbe, 0xde, 0, 1, 1, 2, 3, 4, ...silence));
      packet[0] = 0x80 | 0x10 | 2; // two CSRCs and an extension header
      return void send(session.rtp, packet);
    },
    "oversized audio": () => void send(session.rtp, own({}, new Uint8Array(random.int(1000, 8000)).fill(0xff))),
  };
  const names = Object.keys(CASES);
  for (let i = 0; i < cases; i++) {
    const name = random.pick(names);
    const reason = CASES[name]!();
    tally.see(name);
    if (reason) expected[reason]++;
    tally.cases++;
    // Paced, so the socket's buffer holds what is sent; the kernel's drops are counted anyway.
    await Bun.sleep(name.includes("oversized") ? 2 : random.chance(0.3) ? 1 : 0);
  }
  clearInterval(keepAlive);
  await Bun.sleep(300);
  kernel.drops +=
    socketsOf(box.sawt.proc.pid).find((s) => s.proto === "udp" && s.localPort === session.audioPort)?.drops ?? 0;
  // Nothing else changed: the recogniser heard no digit, so the RECOGNIZE is still waiting.
  for (const m of link.messages.splice(0)) {
    tally.breach(`${m.kind === "event" ? m.name : `response ${m.status}`} while only strays carried digits`);
    for (const problem of messageProblems(m, new Set([1]))) tally.breach(problem);
  }
  link.send(request("STOP", 2, [["Channel-Identifier", channel]]));
  const stopped = await link.take((m) => m.kind === "response" && m.requestId === 2, 5000);
  if (stopped?.status !== 200) tally.breach(`STOP answered ${stopped?.status ?? "nothing"}`);
  const bye = await session.bye();
  if (bye !== 200) tally.breach(`BYE answered ${bye}`);
  link.close();
  stranger.close();
}

async function run(box: Box, plan: DoorPlan): Promise<DoorTally> {
  const tally = newTally();
  const before = await strays(box);
  const expected: Record<Reason, number> = { address: 0, ssrc: 0, malformed: 0 };
  const kernel = { drops: 0 };
  await inWorkers(plan, (random, cases, index) => worker(box, random, cases, index, tally, expected, kernel));
  await Bun.sleep(200);
  const after = await strays(box);
  const counted = (r: Reason) => after[r] - before[r];
  const total = (["address", "ssrc", "malformed"] as const).reduce((sum, r) => sum + expected[r] - counted(r), 0);
  for (const r of ["address", "ssrc", "malformed"] as const) {
    tally.see(`counted ${r} ${counted(r)}/${expected[r]}`);
    if (counted(r) > expected[r] || counted(r) < expected[r] - kernel.drops)
      tally.breach(
        `sawt_mrcp_rtp_stray_total{reason="${r}"} grew ${counted(r)}, ${expected[r]} sent (kernel drops ${kernel.drops})`,
      );
  }
  if (total > kernel.drops) tally.breach(`${total} dropped packets not counted (kernel drops ${kernel.drops})`);
  tally.see(`kernel drops ${kernel.drops}`);
  return tally;
}

/** RTP. */
export const rtpDoor: FuzzDoor = {
  name: "RTP",
  covers:
    "digits from another host or SSRC, non-RTP datagrams (also oversized, from anywhere), bad padding; the stream's own packets with sequence and timestamp jumps, unknown payload types, CSRCs and extensions, oversized audio",
  run,
  settleMs: 6000,
};
