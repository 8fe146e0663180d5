/**
 * The chan_websocket door fuzzed (`/v1/calls/asterisk`, src/calls/asterisk/, docs/asterisk.md):
 * one socket per case, dialled as Asterisk does (subprotocol `media`, sometimes `SAWT_KEY_ID` in
 * the URI), then messages in plain text or JSON control: MEDIA_START with its fields present,
 * missing, empty or of the wrong type, formats Sawt takes (any case) and others, channel
 * variables naming a key that does not exist, a channel id of a call that is open; other events
 * before it; media before it; oversized messages; and, on a call that is up, DTMF_END,
 * MEDIA_XOFF/XON, MEDIA_BUFFERING_COMPLETED, MEDIA_MARK_PROCESSED of marks never placed, STATUS,
 * QUEUE_DRAINED, ERROR, MEDIA_START again, unknown events, text that is no event, and media of any
 * size (odd ones too). Contract, per case: media or an event before MEDIA_START, a MEDIA_START
 * without channel_id or of a call that is open close the socket 1008 (reason naming it), a format
 * Sawt does not take 1003, a key that does not exist 1008, a message over 64 KiB 1009; a socket
 * without MEDIA_START is closed 1008 after `calls.identify_timeout_s`; a call that is up hears
 * nothing until it ends — at its HANGUP, or idle after `calls.idle_timeout_s` — when Sawt sends
 * HANGUP in the call's control format and closes 1000. `sawt_calls_refused_total{door=
 * "chan_websocket"}` grows by exactly the protocol, key and silent refusals the cases called for.
 */
import type { Box } from "../box.ts";
import type { Random } from "../fuzz/random.ts";
import { ready } from "./audiosocket.ts";
import { drawCase, event } from "./chan-websocket-cases.ts";
import { withCountedRefusals } from "./call-refusals.ts";
import { type DoorPlan, type DoorTally, type FuzzDoor, inWorkers, newTally } from "./door.ts";

type Tally = ReturnType<typeof newTally>;

const IDENTIFY_MS = 2000;
const IDLE_MS = 3000;
const IN_FLIGHT = 3;

/** Asterisk's side of one socket. */
class Dialled {
  readonly texts: string[] = [];
  binary = 0;
  closedWith: { code: number; reason: string } | undefined;
  readonly closed: Promise<void>;

  constructor(readonly ws: WebSocket) {
    ws.binaryType = "arraybuffer";
    ws.addEventListener("message", (e) => {
      if (typeof e.data === "string") this.texts.push(e.data);
      else this.binary++;
    });
    this.closed = new Promise((resolve) =>
      ws.addEventListener("close", (e) => {
        this.closedWith = { code: e.code, reason: e.reason };
        resolve();
      }),
    );
  }

  static async dial(box: Box, query: string): Promise<Dialled | undefined> {
    const ws = new WebSocket(`${box.sawt.baseUrl.replace(/^http/, "ws")}/v1/calls/asterisk${query}`, ["media"]);
    const dialled = new Dialled(ws);
    await new Promise<void>((resolve) => {
      ws.addEventListener("open", () => resolve());
      void dialled.closed.then(() => resolve());
    });
    return ws.readyState === WebSocket.OPEN ? dialled : undefined;
  }

  async closedWithin(ms: number): Promise<boolean> {
    await Promise.race([this.closed, Bun.sleep(ms)]);
    return this.closedWith !== undefined;
  }
}

const described = (d: Dialled) =>
  `closed ${d.closedWith ? `${d.closedWith.code} "${d.closedWith.reason}"` : "no"}, ${d.texts.length} texts ${JSON.stringify(d.texts.slice(0, 2))}, ${d.binary} binary`;

/** The HANGUP Sawt sends in the call's control format, then its close 1000. */
async function hungUp(d: Dialled, json: boolean, withinMs: number): Promise<boolean> {
  const closed = await d.closedWithin(withinMs);
  const hangup = json ? JSON.stringify({ command: "HANGUP" }) : "HANGUP";
  return closed && d.closedWith?.code === 1000 && d.texts.length === 1 && d.texts[0] === hangup && d.binary === 0;
}

/** A call a worker holds open for a later case to name its channel id. */
interface Held {
  id?: string;
  d?: Dialled;
  json?: boolean;
  since?: number;
}

/** Hangs up the held call (with HANGUP: Sawt answers HANGUP and closes 1000). */
async function release(held: Held, tally: Tally): Promise<void> {
  const { d, json, id } = held;
  if (!d) return;
  held.d = held.id = undefined;
  d.ws.send(event(json!, "HANGUP", { channel_id: id }));
  if (!(await hungUp(d, json!, 3000))) tally.breach(`a held call's HANGUP: ${described(d)}`);
  d.ws.close();
}

async function runCase(
  box: Box,
  r: Random,
  tally: Tally,
  counted: Record<string, number>,
  later: Promise<void>[],
  held: Held,
) {
  // Held well short of the idle timeout, so the call is surely up when a case names it.
  if (held.d && performance.now() - held.since! > IDLE_MS / 2) await release(held, tally);
  const c = drawCase(r, held.id);
  const d = await Dialled.dial(box, c.query);
  if (!d) return void tally.breach(`${c.label}: the upgrade was refused`);
  for (const message of c.messages) d.ws.send(message);
  const count = () => {
    if (c.expect.refusal) counted[c.expect.refusal] = (counted[c.expect.refusal] ?? 0) + 1;
  };
  const background = (work: Promise<void>) => {
    later.push(work);
    void work.finally(() => later.splice(later.indexOf(work), 1));
  };
  const { outcome } = c.expect;
  if (typeof outcome === "number") {
    const closed = await d.closedWithin(3000);
    const ok =
      closed &&
      d.closedWith?.code === outcome &&
      d.closedWith.reason.startsWith(c.expect.reason ?? "") &&
      d.texts.length === 0 &&
      d.binary === 0;
    if (!ok) tally.breach(`${c.label}: expected close ${outcome} "${c.expect.reason ?? ""}…", ${described(d)}`);
    count();
    tally.see(`closed ${outcome}`);
    d.ws.close();
    return;
  }
  if (outcome === "silent") {
    if (r.chance(0.85) || later.length >= IN_FLIGHT) {
      await Bun.sleep(r.int(0, 30));
      if (d.closedWith)
        tally.breach(`${c.label}: a socket without MEDIA_START closed before the timeout: ${described(d)}`);
      d.ws.close();
      return void tally.see("no MEDIA_START, closed by the peer");
    }
    const since = performance.now();
    return background(
      (async () => {
        const closed = await d.closedWithin(IDENTIFY_MS + 5000);
        const waited = performance.now() - since;
        if (
          !closed ||
          d.closedWith?.code !== 1008 ||
          d.closedWith.reason !== "MEDIA_START expected" ||
          waited < IDENTIFY_MS - 300
        )
          tally.breach(`${c.label}: after ${waited.toFixed(0)} ms ${described(d)}`);
        count();
        tally.see("no MEDIA_START, closed 1008 at the identify timeout");
      })(),
    );
  }
  // A call is up: nothing comes to it until it ends.
  await Bun.sleep(r.int(5, 40));
  if (d.closedWith || d.texts.length > 0 || d.binary > 0) {
    d.ws.close();
    return void tally.breach(
      `${c.label}: a call that is up: ${described(d)} ← ${c.messages.map(String).join(" | ").slice(0, 300)}`,
    );
  }
  await release(held, tally);
  const roll = r.next();
  if (roll < 0.2) {
    Object.assign(held, { id: c.channelId, d, json: c.json, since: performance.now() });
    return void tally.see("call up, held for the next case");
  }
  if (roll < 0.55) {
    d.ws.send(event(c.json, "HANGUP", { channel_id: c.channelId }));
    if (!(await hungUp(d, c.json, 3000))) tally.breach(`${c.label}: its HANGUP: ${described(d)}`);
    d.ws.close();
    return void tally.see("call up, HANGUP answered HANGUP and 1000");
  }
  if (roll < 0.9 || later.length >= IN_FLIGHT) {
    d.ws.close();
    return void tally.see("call up, closed by the peer");
  }
  background(
    (async () => {
      const since = performance.now();
      const ok = await hungUp(d, c.json, IDLE_MS + 6000);
      if (!ok || performance.now() - since < IDLE_MS - 300) tally.breach(`${c.label}: an idle call: ${described(d)}`);
      tally.see("call up, ended idle with HANGUP and 1000");
      d.ws.close();
    })(),
  );
}

async function run(box: Box, plan: DoorPlan): Promise<DoorTally> {
  const tally = newTally();
  await withCountedRefusals(box, "chan_websocket", tally, async (counted) => {
    await inWorkers(plan, async (random, cases) => {
      const later: Promise<void>[] = [];
      const held: Held = {};
      for (let i = 0; i < cases; i++) {
        await runCase(box, random, tally, counted, later, held);
        tally.cases++;
      }
      await release(held, tally);
      await Promise.all([...later]);
    });
  });
  return tally;
}

/** chan_websocket. */
export const chanWebsocketDoor: FuzzDoor = {
  name: "chan_websocket",
  covers:
    "MEDIA_START in plain text and JSON with fields missing, empty or of the wrong type, formats taken (any case) and not, odd optimal_frame_size, key ids naming no key (channel variables, URI), the channel id of an open call; events, text and media before it; messages over 64 KiB; on a call: DTMF_END, MEDIA_XOFF/XON, MEDIA_BUFFERING_COMPLETED, MEDIA_MARK_PROCESSED of unplaced marks, STATUS, QUEUE_DRAINED, ERROR, MEDIA_START again, unknown events, non-events, media of any size; HANGUP, the peer closing, idle calls, silent sockets",
  run,
  prepare: ready,
  settleMs: 6000,
};
