/**
 * The call API fuzzed (src/calls/http/, docs/asterisk.md "The call API"): each worker keeps an
 * AudioSocket call up (./call-api-live.ts) and sends, with a good key, a wrong one or none:
 * `GET /v1/calls`, `GET /v1/calls/{id}/transcript` in every format and bad ones,
 * `POST /v1/calls/{id}/say|clear|hangup` with bodies valid, invalid, malformed, not objects, over
 * `server.max_json_bytes`, `POST /v1/calls` (externalMedia) with good and bad fields, other
 * methods; for the call that is up, one that ended, ids that never existed or are mangled. And the
 * WebSockets: `/v1/calls/{id}` with commands (say with text/ssml/voice/dialect, streamed text and
 * flush, clear, hangup), bad ones (malformed JSON, unknown types, fields of the wrong type, BINARY),
 * on a call that is up and on ids that are not; `/v1/calls` with anything.
 * Contract: every reply holds the REST contract (fuzz/contract.ts: request id, error shapes, no
 * leak), its status is one the OpenAPI document lists for the route (never 500) and the one the
 * case calls for (401 without a good key, 404 for a call that is not the key's, 422 for a bad
 * format or field, 400 for a body that is not JSON, 200/201 and the documented shapes otherwise);
 * on a WebSocket every bad command gets one `error` event of its status, in order, and the socket
 * stays; a call that is not there gets the 404 event and the close 1008; the feed answers 400.
 */
import type { Box } from "../box.ts";
import { checkErrorObject, checkHttpReply, leaks } from "../fuzz/contract.ts";
import type { Random } from "../fuzz/random.ts";
import { ready } from "./audiosocket.ts";
import { badCommand, DOCUMENTED, goodCommand, LiveCall, nastyId, restBody } from "./call-api-live.ts";
import { type DoorPlan, type DoorTally, type FuzzDoor, inWorkers, newTally } from "./door.ts";

type Tally = ReturnType<typeof newTally>;
type Json = Record<string, unknown>;

/** A request and the statuses its case allows. */
interface Call {
  readonly label: string;
  readonly method: string;
  readonly path: string;
  readonly route: string;
  readonly init: RequestInit;
  readonly allowed: readonly number[];
}

const FORMATS = ["json", "text", "verbose_json", "srt", "vtt", "diarized_json"];

function drawCall(box: Box, r: Random, live: LiveCall, ended: string[], made: string[]): Call {
  const authRoll = r.next();
  const headers: Record<string, string> =
    authRoll < 0.9 ? { "x-api-key": box.key } : authRoll < 0.95 ? { authorization: `Bearer ${box.key}x` } : {};
  const authed = authRoll < 0.9;
  const idRoll = r.next();
  const which =
    idRoll < 0.6 ? "live" : idRoll < 0.7 && ended.length > 0 ? "ended" : idRoll < 0.85 ? "unknown" : "nasty";
  const id =
    which === "live"
      ? live.id
      : which === "ended"
        ? r.pick(ended)
        : which === "unknown"
          ? crypto.randomUUID()
          : nastyId(r);
  // A mangled id may not reach the call routes at all (`..` is resolved by the client): 404 or 405.
  const unless = (statuses: number[]) => {
    const known = authed ? statuses : [401];
    return which === "nasty" ? [...known, 404, 405] : known;
  };
  const roll = r.next();
  if (roll < 0.1)
    return {
      label: "list",
      method: "GET",
      path: "/v1/calls",
      route: "/v1/calls",
      init: { headers },
      allowed: unless([200]),
    };
  if (roll < 0.3) {
    const format = r.chance(0.85) ? r.pick(FORMATS) : r.pick(["xml", "", "JSON", "srt ", r.text(4).toWellFormed()]);
    const query = r.chance(0.1) ? "" : `?format=${encodeURIComponent(format)}`;
    const good = query === "" || FORMATS.includes(format);
    return {
      label: "transcript",
      method: "GET",
      path: `/v1/calls/${encodeURIComponent(id)}/transcript${query}`,
      route: "/v1/calls/{id}/transcript",
      init: { headers },
      allowed: unless(!good ? [422] : which === "live" || which === "ended" ? [200] : [404]),
    };
  }
  if (roll < 0.8) {
    const type = r.pick(["say", "say", "clear", "hangup"] as const);
    const body = restBody(r, type);
    const statuses =
      which === "live"
        ? body.statuses
        : which === "ended"
          ? [404, ...body.statuses.filter((s) => s === 400 || s === 422 || s === 413)]
          : [404];
    return {
      label: `${type} ${body.label}`,
      method: "POST",
      path: `/v1/calls/${encodeURIComponent(id)}/${type}`,
      route: `/v1/calls/{id}/${type}`,
      init: { headers: { ...headers, "content-type": "application/json" }, body: body.text },
      allowed: unless(statuses),
    };
  }
  if (roll < 0.93) {
    const fields: Json = {};
    const format = r.pick(["ulaw", "alaw", "slin16", "opus", "", 5, undefined]);
    if (format !== undefined) fields.format = format;
    if (r.chance(0.4)) fields.voice = r.pick(["Yara", "nope", 3, ""]);
    if (r.chance(0.4)) fields.language = r.pick(["ar", "en", "fr", null]);
    const valid =
      ["ulaw", "alaw", "slin16"].includes(String(format)) &&
      (fields.voice === undefined || typeof fields.voice === "string") &&
      (fields.language === undefined || ["ar", "en"].includes(String(fields.language)));
    // The box loads no English recogniser (tests run with asr.builtin = false): a call in English is
    // refused with 400 before it opens, never opened to end at once.
    const unserved = fields.language === "en";
    const text = r.chance(0.05) ? JSON.stringify(fields).slice(0, -1) : JSON.stringify(fields);
    const malformed = !text.endsWith("}");
    return {
      label: "externalMedia",
      method: "POST",
      path: "/v1/calls",
      route: "/v1/calls",
      init: { headers: { ...headers, "content-type": "application/json" }, body: text },
      // 503: every externalMedia port of the box's range is held.
      allowed: unless(malformed ? [400] : valid ? (unserved ? [400] : [201, 503]) : [422]),
    };
  }
  const method = r.pick(["PUT", "DELETE", "PATCH"]);
  const path = r.pick([
    `/v1/calls/${encodeURIComponent(id)}/say`,
    "/v1/calls",
    `/v1/calls/${encodeURIComponent(id)}/transcript`,
  ]);
  return { label: "other method", method, path, route: "", init: { headers }, allowed: [404, 405] };
}

function shapeProblems(call: Call, status: number, json: Json | undefined, live: LiveCall): string[] {
  if (status >= 300) return [];
  if (call.label === "list")
    return json?.object === "list" &&
      Array.isArray(json.data) &&
      (live.ending || (json.data as Json[]).some((c) => c.id === live.id))
      ? []
      : ["list shape (or the live call missing)"];
  if (call.label === "externalMedia")
    return typeof json?.id === "string" && typeof json.external_host === "string" && typeof json.format === "string"
      ? []
      : ["201 shape"];
  if (call.method === "POST")
    return typeof json?.call_id === "string" && typeof json.accepted === "string" ? [] : ["command shape"];
  return [];
}

async function rest(box: Box, r: Random, live: LiveCall, ended: string[], made: string[], tally: Tally): Promise<void> {
  const call = drawCall(box, r, live, ended, made);
  const response = await fetch(`${box.sawt.baseUrl}${call.path}`, { method: call.method, ...call.init });
  const text = await response.text();
  const status = response.status;
  tally.see(`${call.label.split(" ")[0]} ${status}`);
  const where = `${call.label} ${call.method} ${call.path.slice(0, 80)}`;
  for (const problem of checkHttpReply(call.method, status, response.headers, text, box.secrets))
    tally.breach(`${where}: ${problem}`);
  const documented =
    call.path.includes("..") || call.path.includes("%2e") ? undefined : DOCUMENTED.get(`${call.method} ${call.route}`);
  if (documented && !documented.has(status)) tally.breach(`${where}: ${status} is not documented for the route`);
  // 429 and 503 are the key's rate limit and the box's bounds: allowed wherever documented.
  if (!call.allowed.includes(status) && !(status === 503 && call.label !== "list") && status !== 429)
    tally.breach(`${where}: ${status}, the case calls for ${call.allowed.join("/")}: ${text.slice(0, 200)}`);
  let json: Json | undefined;
  try {
    json = JSON.parse(text) as Json;
  } catch {}
  if (status < 300 && call.route.endsWith("transcript")) {
    if (!response.headers.get("content-type")) tally.breach(`${where}: a transcript without a content type`);
  } else for (const problem of shapeProblems(call, status, json, live)) tally.breach(`${where}: ${problem}`);
  if (status === 200 && call.path.endsWith("/hangup") && call.path.includes(live.id)) live.ending = true;
  if (status === 201 && typeof json?.id === "string") {
    made.push(json.id);
    if (r.chance(0.6))
      await fetch(`${box.sawt.baseUrl}/v1/calls/${json.id}/hangup`, {
        method: "POST",
        headers: { "x-api-key": box.key },
      }).then(async (res) => {
        if (res.status !== 200)
          tally.breach(
            `hanging up externalMedia ${res.status} ${await res.text()} ← ${String(call.init.body)} → ${text}`,
          );
      });
  }
}

/** Waits for `count` events of `type` (or the close); resolves them. */
async function events(events: Json[], type: string, count: number, ms: number, closed: () => boolean): Promise<Json[]> {
  const deadline = performance.now() + ms;
  for (;;) {
    const found = events.filter((e) => e.type === type);
    if (found.length >= count || closed() || performance.now() > deadline) return found;
    await Bun.sleep(5);
  }
}

async function socket(box: Box, r: Random, live: LiveCall, tally: Tally): Promise<void> {
  const roll = r.next();
  const feed = roll < 0.1;
  const unknown = !feed && roll < 0.25;
  const badKey = r.chance(0.04);
  const id = unknown ? r.pick([crypto.randomUUID(), nastyId(r)]) : live.id;
  const path = feed ? "/v1/calls" : `/v1/calls/${encodeURIComponent(id)}`;
  const ws = new WebSocket(`${box.sawt.baseUrl.replace(/^http/, "ws")}${path}`, {
    headers: { "x-api-key": badKey ? `${box.key}x` : box.key },
  } as unknown as string[]);
  const received: Json[] = [];
  let close: { code: number; reason: string } | undefined;
  let opened = false;
  const done = new Promise<void>((resolve) =>
    ws.addEventListener("close", (e) => {
      close = { code: e.code, reason: e.reason };
      resolve();
    }),
  );
  ws.addEventListener("open", () => (opened = true));
  ws.addEventListener("message", (e) => {
    const text = String(e.data);
    for (const leak of leaks(text, box.secrets)) tally.breach(`ws ${path}: leak ${leak}`);
    try {
      received.push(JSON.parse(text) as Json);
    } catch {
      tally.breach(`ws ${path}: an event that is not JSON: ${text.slice(0, 100)}`);
    }
  });
  await Promise.race([done, new Promise<void>((resolve) => ws.addEventListener("open", () => resolve()))]);
  const where = `ws ${feed ? "feed" : unknown ? "unknown call" : "call"}`;
  if (badKey) {
    await Promise.race([done, Bun.sleep(2000)]);
    if (opened && !close) tally.breach(`${where}: a wrong key's socket opened`);
    ws.close();
    return void tally.see(`${where}: wrong key refused`);
  }
  if (unknown) {
    await Promise.race([done, Bun.sleep(3000)]);
    const error = received[0];
    // A mangled id may not route to the call socket at all (`a/b`, `..`): the upgrade is refused.
    if (!opened && close && received.length === 0 && id !== live.id && /[/.]/.test(id))
      return void tally.see(`${where}: not a call path, upgrade refused`);
    if (close?.code !== 1008 || error?.type !== "error" || error.status !== 404)
      tally.breach(`${where}: ${JSON.stringify(received.slice(0, 2))} close ${JSON.stringify(close)}`);
    return void tally.see(`${where}: 404 and 1008`);
  }
  if (!feed && (await events(received, "call.started", 1, 3000, () => !!close)).length === 0) {
    ws.close();
    if (live.ending) return void tally.see(`${where}: the call ended meanwhile`);
    return void tally.breach(`${where}: no call.started (close ${JSON.stringify(close)})`);
  }
  const bad = Array.from({ length: r.int(0, 4) }, () => badCommand(r));
  const good = feed ? [] : Array.from({ length: r.int(0, 3) }, () => goodCommand(r));
  const wanted: number[] = [];
  for (const message of [...good, ...bad].sort(() => r.next() - 0.5)) {
    const command = "status" in message ? message : undefined;
    if (command) wanted.push(feed ? 400 : command.status);
    ws.send(message.data);
    if (!command && (message as { hangup?: boolean }).hangup) live.ending = true;
  }
  const errors = await events(received, "error", wanted.length, 3000, () => !!close);
  const statuses = errors.map((e) => Number(e.status));
  // A good command may fail later (its playback: a voice that cannot speak a text): its error event
  // names the context. The bad ones' come first-to-last.
  const immediate = errors.filter((e) => e.context === undefined).map((e) => Number(e.status));
  if (!live.ending && JSON.stringify(immediate.slice(0, wanted.length)) !== JSON.stringify(wanted))
    tally.breach(
      `${where}: error events ${JSON.stringify(statuses)} for bad commands that call for ${JSON.stringify(wanted)}`,
    );
  for (const e of errors) {
    const { type: _t, call_id: _c, code, status, context: _x, ...body } = e;
    if (code !== `HTTP_${status}`) tally.breach(`${where}: error code ${code} for status ${status}`);
    if (![400, 404, 413, 422, 429, 503].includes(Number(status))) tally.breach(`${where}: error status ${status}`);
    const message = String(body.message ?? "");
    if (!message) tally.breach(`${where}: an error event without a message`);
    for (const p of checkErrorObject(Number(status), {
      detail: message,
      ...(Number(status) === 422 ? { error: "validation_error", errors: body.errors ?? [] } : {}),
    }).filter((p) => !p.includes("shape")))
      tally.breach(`${where}: ${p}`);
  }
  if (close && !live.ending) tally.breach(`${where}: closed ${JSON.stringify(close)} after commands`);
  tally.see(`${where}: ${wanted.length} bad commands, ${good.length} good`);
  ws.close();
}

async function run(box: Box, plan: DoorPlan): Promise<DoorTally> {
  const tally = newTally();
  const made: string[] = [];
  await inWorkers(plan, async (random, cases) => {
    const ended: string[] = [];
    let live = await LiveCall.open(box, tally);
    try {
      for (let i = 0; i < cases; i++) {
        if (live.ending || live.closed) {
          ended.push(live.id);
          live.stop();
          live = await LiveCall.open(box, tally);
        }
        if (random.chance(0.25)) await socket(box, random, live, tally);
        else await rest(box, random, live, ended, made, tally);
        tally.cases++;
      }
    } finally {
      live.stop();
    }
  });
  tally.see(`externalMedia calls made ${made.length}`);
  return tally;
}

/** The call API. */
export const callApiDoor: FuzzDoor = {
  name: "call API",
  covers:
    "GET /v1/calls, transcripts in every format and bad ones, say/clear/hangup with valid, invalid, malformed, non-object and oversized bodies, POST /v1/calls (externalMedia) with good and bad fields, other methods, for the call that is up, one that ended, unknown and mangled ids, with and without a good key; the call WebSocket with say (text, SSML, voice, dialect), streamed text and flush, clear, hangup and bad commands (malformed JSON, unknown types, wrong field types, BINARY), on calls that are up and ids that are not; the call feed with anything",
  run,
  prepare: ready,
  settleMs: 8000,
};
