/**
 * What the voice-bot sockets' fuzzed doors (./deepgram-listen.ts, ./deepgram-speak.ts,
 * ./elevenlabs.ts) check alike: a refused upgrade (raw, ../support.ts rawUpgrade) answered by the
 * door's protocol's error body and never a 500; Deepgram's `Error` message and close frame (src/http/deepgram.ts:
 * the payload code of the `Error` begins the close reason, 1011 only for an idle stream); no
 * leak in any text frame; and, at the end of a door's run, no socket of its doors left open on the
 * server (`sawt_ws_connections{door}` back to nothing).
 */
import type { Box } from "../box.ts";
import {
  ALLOWED_HTTP_STATUSES,
  checkBorrowedError,
  checkErrorObject,
  checkHttpReply,
  isNoAudio,
  leaks,
} from "../fuzz/contract.ts";
import { openSockets, type SocketRecord } from "../fuzz/ws-session.ts";
import type { Random } from "../fuzz/random.ts";
import { rawUpgrade } from "../support.ts";
import { type DoorPlan, type DoorTally, inWorkers, newTally } from "./door.ts";

export type Tally = ReturnType<typeof newTally>;

/** How a client presents the key, as these doors' clients do (or a wrong key, or none). */
export type KeyWay = "header" | "token" | "bearer" | "subprotocol" | "xi" | "wrong" | "none";

/** The upgrade headers and subprotocols of a way of presenting `key`. */
export function keyHeaders(way: KeyWay, key: string): { headers: Record<string, string>; protocols?: string[] } {
  const wrong = `${key.slice(0, -3)}zzz`;
  switch (way) {
    case "header":
      return { headers: { "x-api-key": key } };
    case "token":
      return { headers: { authorization: `Token ${key}` } };
    case "bearer":
      return { headers: { authorization: `Bearer ${key}` } };
    case "subprotocol":
      return { headers: {}, protocols: ["token", key] };
    case "xi":
      return { headers: { "xi-api-key": key } };
    case "wrong":
      return { headers: { authorization: `Token ${wrong}`, "xi-api-key": wrong } };
    case "none":
      return { headers: {} };
  }
}

/** How a Deepgram client presents its key, as the deepgram-*.ts doors draw it (now and then wrong or none). */
export function drawDeepgramKey(random: Random): KeyWay {
  const roll = random.next();
  if (roll < 0.07) return "wrong";
  if (roll < 0.1) return "none";
  return random.pick(["token", "token", "header", "bearer", "subprotocol"]);
}

/**
 * What {@link probeUpgrade} expects of a raw upgrade: with a `refusedKey` (wrong, or missing where
 * the door takes it only at the upgrade) a 401 for a query the door serves and never a 101 for
 * any other; with a good key a 101 for a query the door serves, anything in contract otherwise.
 */
export function upgradeExpectation(refusedKey: boolean, servedQuery: boolean): "open" | "401" | "refused" | "any" {
  if (refusedKey) return servedQuery ? "401" : "refused";
  return servedQuery ? "open" : "any";
}

/**
 * An upgrade sent raw: with a query the door serves, a wrong or missing key must get 401 and a good
 * key its 101; with a wrong or missing key whatever the query, never a 101 (the door reads its query
 * first, so a bad one is its 400); anything else a 101 or the door's 4xx in its protocol's shape.
 */
export async function probeUpgrade(
  box: Box,
  pathAndQuery: string,
  keyWay: KeyWay,
  expect: "open" | "401" | "refused" | "any",
  tally: Tally,
): Promise<void> {
  const { headers, protocols } = keyHeaders(keyWay, box.key);
  if (protocols) headers["sec-websocket-protocol"] = protocols.join(", ");
  let reply: Awaited<ReturnType<typeof rawUpgrade>>;
  try {
    reply = await rawUpgrade(box.sawt.ports.http, pathAndQuery, headers);
  } catch (error) {
    tally.breach(`upgrade ${pathAndQuery.slice(0, 80)}: ${(error as Error).message}`);
    return;
  }
  tally.see(`upgrade ${reply.status}`);
  const where = `upgrade ${pathAndQuery.slice(0, 100)} (${keyWay})`;
  if (expect === "401" && reply.status !== 401) tally.breach(`${where}: ${reply.status}, not 401`);
  if (expect === "refused" && reply.status === 101) tally.breach(`${where}: opened`);
  if (expect === "open" && reply.status !== 101) tally.breach(`${where}: ${reply.status}, not 101`);
  if (reply.status === 101) return;
  if (reply.status < 400 || reply.status >= 500) tally.breach(`${where}: status ${reply.status}`);
  const path = pathAndQuery.split("?")[0]!;
  for (const problem of checkHttpReply("GET", reply.status, reply.headers, reply.body, box.secrets, path))
    tally.breach(`${where}: ${problem}`);
}

/** Every text frame's leaks, and the frames that are not JSON objects. */
export function textProblems(record: SocketRecord, box: Box): string[] {
  const problems: string[] = [];
  for (const text of record.raw) for (const leak of leaks(text, box.secrets)) problems.push(`leak: ${leak}`);
  for (const text of record.texts)
    if (typeof text === "string") problems.push(`text frame not a JSON object: ${text.slice(0, 60)}`);
  return problems;
}

/** The payload codes a Deepgram socket's close reason begins with (src/http/deepgram.ts). */
const PAYLOAD =
  /^(MESSAGE-0000|BIG-0000|DATA-0000|NET-0000|NET-0001|INVALID_AUTH|INSUFFICIENT_PERMISSIONS|NOT_FOUND|TOO_MANY_REQUESTS|SERVICE_UNAVAILABLE|TIMEOUT|INVALID_QUERY_PARAMETER|Bad Request)$/;

/** A Deepgram `Error` message: its shape, its payload code, and Sawt's body with a contract status. */
export function deepgramErrorProblems(message: Record<string, unknown>): string[] {
  const problems = checkBorrowedError("deepgram", message);
  if (typeof message.message !== "string" || !PAYLOAD.test(message.message))
    problems.push(`Error payload ${String(message.message)}`);
  const { status, ...body } = (message.sawt ?? {}) as Record<string, unknown>;
  if (typeof status !== "number") return [...problems, "Error without sawt.status"];
  if (!ALLOWED_HTTP_STATUSES.has(status) && !isNoAudio(status, body.detail)) problems.push(`Error status ${status}`);
  else problems.push(...checkErrorObject(status, body));
  if (message.message === "NET-0000" && !isNoAudio(status, body.detail)) problems.push("a server failure (NET-0000)");
  return problems;
}

/**
 * A Deepgram socket's end: a close frame of a known code; any but 1000 right after an `Error`
 * whose payload code begins the reason (Bun's own 1009 for a frame over its limit excepted).
 */
export function deepgramCloseProblems(record: SocketRecord, oversizeSent: boolean): string[] {
  // Not opened: a refused upgrade, which the raw upgrades check.
  if (!record.serverClosed || !record.opened) return [];
  const problems: string[] = [];
  if (![1000, 1003, 1008, 1009, 1011, 1013].includes(record.code)) problems.push(`closed ${record.code}`);
  if (Buffer.byteLength(record.reason) > 123) problems.push("close reason over 123 bytes");
  const last = record.texts.at(-1);
  const error = typeof last === "object" && last.type === "Error" ? last : undefined;
  if (record.code === 1000) {
    if (error) problems.push("closed 1000 after an Error");
  } else if (!error) {
    if (!(record.code === 1009 && oversizeSent)) problems.push(`closed ${record.code} without an Error`);
  } else if (record.reason.split(":")[0] !== error.message) {
    problems.push(`close reason ${record.reason.slice(0, 40)} does not begin with ${String(error.message)}`);
  }
  if (record.code === 1011 && error?.message !== "NET-0001")
    problems.push("closed 1011 for anything but an idle stream");
  return problems;
}

/** Waits (up to 10 s) until the box holds no socket of `doors`; a breach when one stays open. */
export async function noSocketLeft(box: Box, doors: readonly string[], tally: Tally): Promise<void> {
  const deadline = performance.now() + 10_000;
  for (;;) {
    const open = openSockets(await box.metrics(), doors);
    if (open === 0) return;
    if (performance.now() > deadline) return tally.breach(`${open} socket(s) of ${doors.join(", ")} left open`);
    await Bun.sleep(200);
  }
}

/**
 * A door's whole run: its cases in the plan's workers (`runCase` draws and checks one), then no
 * socket of `doors` (their `sawt_ws_connections` labels) left open on the server.
 */
export async function runSocketDoor(
  box: Box,
  plan: DoorPlan,
  doors: readonly string[],
  runCase: (box: Box, random: Random, tally: Tally) => Promise<void>,
): Promise<DoorTally> {
  const tally = newTally();
  await inWorkers(plan, async (random, cases) => {
    for (let i = 0; i < cases; i++) {
      tally.cases++;
      await runCase(box, random, tally);
    }
  });
  await noSocketLeft(box, doors, tally);
  return tally;
}

/**
 * How a session ended, for the tally: refused at the upgrade, closed by the server (with the
 * error's words that closed it, when one did), or ended by the client.
 */
export function sessionOutcome(
  record: Pick<SocketRecord, "opened" | "serverClosed" | "code">,
  end: "wait" | "close" | "drop",
  error?: string,
): string {
  if (!record.opened) return "refused";
  if (record.serverClosed) return `closed ${record.code}${error ? ` ${error}` : ""}`;
  return end === "drop" ? "dropped by the client" : "closed by the client";
}

/** A random size for a frame, now and then large. */
export function frameSize(random: Random): number {
  return random.pick([0, 1, 3, random.int(1, 640), random.int(640, 8000), random.int(8000, 70_000)]);
}
