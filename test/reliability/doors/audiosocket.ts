/**
 * The AudioSocket door fuzzed (src/calls/audiosocket/, docs/asterisk.md): one connection per case,
 * its bytes from ./audiosocket-wire.ts written at once or in pieces with pauses (a slow peer), and
 * the connection then held, hung up with a 0x00 frame, closed abruptly, or left silent. Contract,
 * from the docs, per case: bad input (audio or anything but a 16-byte UUID first, an unknown kind,
 * a rate over 48 kHz, a kind changing mid-call, a length over 16 KiB, a second UUID, a UUID
 * whose call is open) gets exactly one 0x00 frame and the close; the peer's 0x00 or 0xff closes
 * without a frame before a call opened and with the 0x00 after; a call that opened stays open
 * (nothing sent to it) until its peer hangs up, or it is idle for `calls.idle_timeout_s`; a
 * connection that never identifies itself gets the 0x00 frame after `calls.identify_timeout_s`.
 * At the end, `sawt_calls_refused_total{door="audiosocket"}` grew by exactly the protocol and
 * silent refusals the cases called for.
 */
import { connect, type Socket } from "node:net";
import type { Box } from "../box.ts";
import type { Random } from "../fuzz/random.ts";
import {
  type AudioSocketCase,
  audioFrame,
  drawCase,
  type Expectation,
  expected,
  HANGUP,
  TAKEN_LABEL,
  uuidFrame,
  uuidHex,
} from "./audiosocket-wire.ts";
import { withCountedRefusals } from "./call-refusals.ts";
import { type DoorPlan, type DoorTally, type FuzzDoor, inWorkers, newTally } from "./door.ts";

type Tally = ReturnType<typeof newTally>;

/** The box's `calls.identify_timeout_s` and `calls.idle_timeout_s` (./box.ts), in ms. */
const IDENTIFY_MS = 2000;
const IDLE_MS = 3000;
/** Cases a worker leaves to a timeout at once (each holds a connection for seconds). */
const IN_FLIGHT = 3;

/** Asterisk's side of one connection, as raw bytes. */
class Peer {
  private readonly chunks: Buffer[] = [];
  readonly closed: Promise<void>;
  isClosed = false;

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => this.chunks.push(chunk));
    socket.on("error", () => undefined);
    this.closed = new Promise((resolve) =>
      socket.once("close", () => {
        this.isClosed = true;
        resolve();
      }),
    );
  }

  static async open(port: number): Promise<Peer> {
    const socket = connect({ host: "127.0.0.1", port, noDelay: true });
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", () => resolve());
      socket.once("error", reject);
    });
    return new Peer(socket);
  }

  get received(): Uint8Array {
    return Buffer.concat(this.chunks);
  }

  write(bytes: Uint8Array): void {
    if (!this.socket.destroyed) this.socket.write(bytes);
  }

  /** Writes `bytes` at once, or in pieces with pauses. */
  async send(bytes: Uint8Array, random: Random): Promise<void> {
    if (bytes.length < 2 || random.chance(0.7)) return this.write(bytes);
    let at = 0;
    for (let n = random.int(2, 6); n > 0 && at < bytes.length; n--) {
      const next = n === 1 ? bytes.length : random.int(at + 1, bytes.length);
      this.write(bytes.subarray(at, next));
      at = next;
      await Bun.sleep(random.int(0, 25));
    }
    this.write(bytes.subarray(at));
  }

  async closedWithin(ms: number): Promise<boolean> {
    await Promise.race([this.closed, Bun.sleep(ms)]);
    return this.isClosed;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** What the case's connection showed, against what the contract says (returns the refusal it counted). */
function judge(peer: Peer, closed: boolean, want: Expectation, c: AudioSocketCase, tally: Tally): Expectation {
  const got = peer.received;
  const seen = !closed ? "open" : same(got, HANGUP) ? "hangup" : got.length === 0 ? "close" : "other";
  const match = [want, want.or].find((w) => w?.outcome === seen);
  if (match) return match;
  tally.breach(
    `${c.label}: expected ${want.outcome}${want.or ? ` or ${want.or.outcome}` : ""}, ` +
      `got ${seen} (${Buffer.from(got.subarray(0, 12)).toString("hex")}) ← ${Buffer.from(c.stream.subarray(0, 48)).toString("hex")}`,
  );
  return want;
}

/** Waits until `GET /v1/calls` lists the call `id`. */
async function listed(box: Box, id: string): Promise<boolean> {
  const deadline = performance.now() + 5000;
  while (performance.now() < deadline) {
    const response = await fetch(`${box.sawt.baseUrl}/v1/calls`, { headers: { "x-api-key": box.key } });
    const list = (await response.json()) as { data?: { id: string }[] };
    if (list.data?.some((call) => call.id === id)) return true;
    await Bun.sleep(20);
  }
  return false;
}

/** Refusals counted so far by reason. */
/** A call that opened: held a moment (nothing may come), then hung up, closed, or left idle. */
async function endCall(
  peer: Peer,
  random: Random,
  tally: Tally,
  c: AudioSocketCase,
  want: Expectation,
  later: Promise<void>[],
) {
  await Bun.sleep(random.int(0, 40));
  if (peer.isClosed || peer.received.length > 0) {
    peer.destroy();
    return void tally.breach(`${c.label}: an open call's connection closed or got ${peer.received.length} bytes`);
  }
  const roll = random.next();
  if (roll < 0.5 && !want.partial) {
    peer.write(HANGUP);
    const closed = await peer.closedWithin(3000);
    if (!closed || !same(peer.received, HANGUP)) tally.breach(`${c.label}: the peer's 0x00 got no 0x00 and close`);
    peer.destroy();
    return void tally.see("call up, hung up with 0x00");
  }
  if (roll < 0.9 || later.length >= IN_FLIGHT) {
    peer.destroy();
    return void tally.see("call up, closed by the peer");
  }
  const since = performance.now();
  const idle = (async () => {
    const closed = await peer.closedWithin(IDLE_MS + 5000);
    const waited = performance.now() - since;
    if (!closed || !same(peer.received, HANGUP) || waited < IDLE_MS - 300)
      tally.breach(
        `${c.label}: an idle call: closed ${closed} after ${waited.toFixed(0)} ms, ${peer.received.length} bytes`,
      );
    tally.see("call up, ended idle");
    peer.destroy();
  })();
  later.push(idle);
  void idle.finally(() => later.splice(later.indexOf(idle), 1));
}

/** One case on its own connection; counts the refusals it called for into `counted`. */
async function runCase(
  box: Box,
  random: Random,
  tally: Tally,
  counted: Record<string, number>,
  later: Promise<void>[],
) {
  const port = box.calls.audiosocket;
  const c = drawCase(random);
  let first: Peer | undefined;
  if (c.label === TAKEN_LABEL) {
    first = await Peer.open(port);
    first.write(Buffer.concat([uuidFrame(c.uuid), audioFrame(0x10, random)]));
    if (!(await listed(box, c.uuid))) tally.breach("a call with a good UUID and audio is not listed");
  }
  const want = expected(c.stream, (hex) => first !== undefined && hex === uuidHex(c.uuid));
  const peer = await Peer.open(port);
  await peer.send(c.stream, random);
  const count = (w: Expectation) => {
    if (w.refusal) counted[w.refusal] = (counted[w.refusal] ?? 0) + 1;
  };
  if (want.outcome === "open") await endCall(peer, random, tally, c, want, later);
  else if (want.outcome === "silent") {
    if (random.chance(0.85) || later.length >= IN_FLIGHT) {
      // Truncated or silent, then gone: an abrupt close the box must forget.
      await Bun.sleep(random.int(0, 30));
      if (peer.isClosed) tally.breach(`${c.label}: an unidentified connection closed before its timeout`);
      peer.destroy();
      tally.see("unidentified, closed by the peer");
    } else {
      const since = performance.now();
      const silent = (async () => {
        const closed = await peer.closedWithin(IDENTIFY_MS + 5000);
        const waited = performance.now() - since;
        count(judge(peer, closed, { outcome: "hangup", refusal: "silent" }, c, tally));
        if (waited < IDENTIFY_MS - 300)
          tally.breach(`${c.label}: closed after ${waited.toFixed(0)} ms, before the identify timeout`);
        tally.see("unidentified, closed at the identify timeout");
        peer.destroy();
      })();
      later.push(silent);
      void silent.finally(() => later.splice(later.indexOf(silent), 1));
    }
  } else {
    const closed = await peer.closedWithin(3000);
    const seen = judge(peer, closed, want, c, tally);
    count(seen);
    tally.see(seen.outcome === "hangup" ? "0x00 and closed" : "closed without a frame");
    peer.destroy();
  }
  if (first) {
    first.write(HANGUP);
    if (!(await first.closedWithin(3000)) || !same(first.received, HANGUP))
      tally.breach(`${c.label}: the first call's 0x00 got no 0x00 and close`);
    first.destroy();
  }
}

async function run(box: Box, plan: DoorPlan): Promise<DoorTally> {
  const tally = newTally();
  await withCountedRefusals(box, "audiosocket", tally, async (counted) => {
    await inWorkers(plan, async (random, cases) => {
      const later: Promise<void>[] = [];
      for (let i = 0; i < cases; i++) {
        await runCase(box, random, tally, counted, later);
        tally.cases++;
      }
      await Promise.all([...later]);
    });
  });
  return tally;
}

/** The box is ready (a call opened before it is refused as unavailable). */
export async function ready(box: Box): Promise<void> {
  const deadline = performance.now() + 60_000;
  while ((await fetch(`${box.sawt.baseUrl}/ready`)).status !== 200) {
    if (performance.now() > deadline) throw new Error("the box never became ready");
    await Bun.sleep(100);
  }
}

/** AudioSocket. */
export const audioSocketDoor: FuzzDoor = {
  name: "AudioSocket",
  covers:
    "calls (UUID, slin audio at 8 to 48 kHz, DTMF of any size, the peer's 0x00, an abrupt close, left idle), audio or DTMF or an unknown kind before the UUID, UUIDs of the wrong size or of an open call, unknown kinds and kind changes mid-call, rates over 48 kHz, lengths over 16 KiB, length lies, truncation, random bytes and frames, slow writes, silent connections",
  run,
  prepare: ready,
  settleMs: 6000,
};
