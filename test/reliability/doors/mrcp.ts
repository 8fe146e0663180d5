/**
 * The MRCP control door fuzzed (./mrcp-cases.ts): each worker opens sessions with both resources
 * as an IVR does and sends its cases on the session's control connection, then STOPs and BYEs it
 * (or leaves it to the idle timeout); now and then a throwaway connection gets a framing break.
 * Contract: every framed request gets exactly one response with its request id, in time; every
 * message the box sends is framed by a true length and is a response of the kit's statuses or an
 * event of the resource for a request the client sent, with a Completion-Cause of its set; a bad
 * message never closes the connection; nothing the box says leaks (a grammar naming /etc/passwd
 * never brings its content back), and no case makes it contact a host (the socket watch).
 */
import type { Box } from "../box.ts";
import { leaks } from "../fuzz/contract.ts";
import type { Random } from "../fuzz/random.ts";
import { type DoorPlan, type DoorTally, type FuzzDoor, inWorkers, newTally } from "./door.ts";
import { drawBroken, drawRequest } from "./mrcp-cases.ts";
import { openSession } from "./mrcp-session.ts";
import { type MrcpLink as Link, MrcpLink, messageProblems, request } from "./mrcp-wire.ts";

type Tally = ReturnType<typeof newTally>;

/** Checks and forgets every message the link received. */
function checkAll(link: Link, sent: ReadonlySet<number>, box: Box, tally: Tally): void {
  for (const problem of link.framing.splice(0)) tally.breach(problem);
  for (const m of link.messages.splice(0)) {
    tally.see(m.kind === "response" ? `mrcp ${m.status}` : `${m.name} ${m.header("Completion-Cause") ?? ""}`.trim());
    for (const problem of messageProblems(m, sent)) tally.breach(problem);
    for (const leak of leaks(m.text, box.secrets)) tally.breach(`leak: ${leak}`);
  }
}

/** Sends `bytes` as request `id` and waits for its one response. */
async function exchange(
  link: Link,
  bytes: Buffer,
  id: number,
  label: string,
  tally: Tally,
): Promise<string | undefined> {
  link.send(bytes);
  const response = await link.take((m) => m.kind === "response" && m.requestId === id, 8000);
  if (!response) {
    tally.breach(link.closed ? `the box closed the connection after ${label}` : `no response to ${label} (id ${id})`);
    return undefined;
  }
  tally.see(`mrcp ${response.status}`);
  for (const problem of messageProblems(response, new Set([id]))) tally.breach(`${label}: ${problem}`);
  return response.state;
}

async function worker(box: Box, random: Random, cases: number, tally: Tally): Promise<void> {
  let left = cases;
  while (left > 0) {
    const session = await openSession(box.sipPort, random, ["speechsynth", "speechrecog"]);
    if ("refused" in session) {
      // Sessions and ports are bounded: a 503 is the contract; anything else is not.
      if (session.refused !== 503) tally.breach(`INVITE for an MRCP session answered ${session.refused}`);
      tally.see(`session refused ${session.refused}`);
      await Bun.sleep(200);
      continue;
    }
    const channels = { synth: session.synth!, recog: session.recog! };
    const link = await MrcpLink.open(session.mrcpPort);
    const sent = new Set<number>([1, 2]);
    // Both channels are bound to this connection first, as an IVR's first requests would: a
    // throwaway connection's request naming a channel then gets 405, instead of taking the channel
    // (the first connection to name one owns it) and ending the session when it closes.
    for (const [id, channel] of [channels.synth, channels.recog].entries()) {
      const bound = await exchange(
        link,
        request("GET-PARAMS", id + 1, [["Channel-Identifier", channel]]),
        id + 1,
        "GET-PARAMS",
        tally,
      );
      if (bound === undefined) break;
    }
    let nextId = 3;
    const stopBoth = async () => {
      for (const channel of [channels.synth, channels.recog]) {
        sent.add(nextId);
        await exchange(link, request("STOP", nextId, [["Channel-Identifier", channel]]), nextId, "STOP", tally);
        nextId++;
      }
    };
    for (let n = random.int(20, 80); n > 0 && left > 0; n--, left--) {
      tally.cases++;
      if (random.chance(0.05)) {
        const broken = drawBroken(random, channels.synth);
        tally.see(`broken: ${broken.label}`);
        const throwaway = await MrcpLink.open(session.mrcpPort);
        throwaway.send(broken.bytes);
        await Bun.sleep(random.pick([5, 30, 100]));
        checkAll(throwaway, new Set(), box, tally);
        throwaway.close();
        continue;
      }
      const c = drawRequest(random, channels, nextId);
      tally.see(c.label);
      sent.add(c.requestId);
      nextId = Math.max(nextId, c.requestId) + 1;
      const state = await exchange(link, c.bytes, c.requestId, c.label, tally);
      if (state === undefined && link.closed) break;
      // A SPEAK or RECOGNIZE under way is stopped soon, so a session never speaks for long.
      if (state !== "COMPLETE" && random.chance(0.5)) await stopBoth();
      checkAll(link, sent, box, tally);
    }
    if (!link.closed) await stopBoth();
    await Bun.sleep(20);
    checkAll(link, sent, box, tally);
    if (random.chance(0.1)) {
      // The IVR vanishes: its control connection drops, no BYE (the box ends the session).
      tally.see("session dropped without a BYE");
      link.close();
      session.drop();
      continue;
    }
    const status = await session.bye();
    if (status !== 200)
      tally.breach(`BYE of an MRCP session answered ${status} (its link ${link.closed ? "closed" : "open"})`);
    link.close();
  }
}

async function run(box: Box, plan: DoorPlan): Promise<DoorTally> {
  const tally = newTally();
  await inWorkers(plan, (random, cases) => worker(box, random, cases, tally));
  return tally;
}

/** MRCP messages. */
export const mrcpDoor: FuzzDoor = {
  name: "MRCP messages",
  covers:
    "every method of both resources and others, channels right/other/unknown/missing, request ids in order/repeated/far ahead, headers of both resources with good and bad values, text, SSML, SRGS (broken, entity expansion, external entities naming a file or a URL, oversized), builtin and fetchable URIs, Content-Length lies; framing breaks on throwaway connections",
  run,
  settleMs: 6000,
};
