/**
 * The jobs API fuzzed (docs/jobs.md): submissions as JSON (`paths` inside, outside, through a
 * symlink, missing, too many; every transcription field with good and bad values; callback URLs
 * allowed, refused, malformed, with credentials) and as multipart uploads, lists with status
 * filters, paging cursors and limits (and walks that follow `last_id` page to page), a job's
 * status, files' results, cancels, deletes and deliveries, with and without a key. Contract: every
 * reply holds the REST contract (fuzz/contract.ts: status set, request id, error shapes, no leak);
 * a 202, a job and a list have their documented shapes; a walk never sees a job twice and goes
 * newest first. At the end every job it made reaches a final state (none is stuck), then each is
 * deleted (its spool and webhook retries go), and the worker process leaves when idle.
 */
import type { Box } from "../box.ts";
import { checkHttpReply } from "../fuzz/contract.ts";
import { NASTY_STRINGS, type Random } from "../fuzz/random.ts";
import { type DoorPlan, type DoorTally, type FuzzDoor, inWorkers, newTally } from "./door.ts";

type Tally = ReturnType<typeof newTally>;
type Json = Record<string, unknown>;

const FIELDS: Record<string, readonly unknown[]> = {
  response_format: ["json", "text", "verbose_json", "srt", "vtt", "diarized_json", "xml", "", 7],
  language: ["ar", "en", "xx", "", null],
  model: ["tone-ctc", "whisper-1", "nope", ""],
  prompt: ["مرحبا", "x".repeat(5000), 3],
  temperature: [0, 0.4, 2, -1, "x"],
  "timestamp_granularities[]": [["word"], ["segment"], ["x"], "word"],
  channels: [1, 2, 0, 99, "x"],
  speakers: [2, 0, 50, "x"],
  itn: [true, false, "x"],
  redact: [["pci"], ["nope"], "pci", []],
  hotwords: [["مرحبا"], ["x".repeat(500)], 5],
  boost: [1, 100, -5, "x"],
};

function callbackUrl(box: Box, r: Random): string {
  const hook = box.hook.port;
  return r.pick([
    `http://127.0.0.1:${hook}/hook`,
    `http://127.0.0.1:${hook}/hook`,
    `http://${box.callbackHosts[1]}/far`,
    "https://example.com/hook",
    `http://127.0.0.1:${hook + 1}/other-port`,
    `http://user:pw@127.0.0.1:${hook}/creds`,
    `ftp://127.0.0.1:${hook}/`,
    "not a url",
    `http://localhost:${hook}/`,
    `http://[::1]:${hook}/`,
    `http://2130706433:${hook}/`,
    `http://127.0.0.1:${hook}/${"x".repeat(3000)}`,
  ]);
}

function paths(box: Box, r: Random): unknown {
  return r.pick([
    ["a.wav"],
    ["a.wav", "b.wav"],
    ["sub"],
    [box.sourceDir],
    ["../../etc/passwd"],
    ["/etc/passwd"],
    ["out.wav"],
    ["nope.wav"],
    ["notes.txt"],
    [],
    Array.from({ length: 25 }, () => "a.wav"),
    [1],
    "a.wav",
    [["a.wav"]],
    ["a".repeat(5000)],
    ["a\u0000.wav"],
    [r.pick(NASTY_STRINGS)],
  ]);
}

/** One request: its method, path, init and a label. */
interface Call {
  readonly label: string;
  readonly method: string;
  readonly path: string;
  readonly init: RequestInit;
}

function drawCall(box: Box, r: Random, made: readonly string[]): Call {
  const auth: Record<string, string> = r.chance(0.95) ? { "x-api-key": r.chance(0.97) ? box.key : `${box.key}x` } : {};
  const known = () =>
    made.length > 0 && r.chance(0.8) ? r.pick(made) : r.pick(["job_x", "%2e%2e", "0", "job_box_zzzz", r.text(8)]);
  const roll = r.next();
  if (roll < 0.3) {
    const body: Json = { paths: paths(box, r) };
    for (let i = 0, n = r.int(0, 3); i < n; i++) {
      const name = r.pick(Object.keys(FIELDS));
      body[name] = r.pick(FIELDS[name]!);
    }
    if (r.chance(0.4)) body.callback_url = callbackUrl(box, r);
    const text = r.chance(0.05) ? JSON.stringify(body).slice(0, r.int(0, 40)) : JSON.stringify(body);
    const type = r.chance(0.05) ? "text/plain" : "application/json";
    return {
      label: "submit json",
      method: "POST",
      path: "/v1/asr/jobs",
      init: { headers: { ...auth, "content-type": type }, body: text },
    };
  }
  if (roll < 0.4) {
    const form = new FormData();
    for (let i = 0, n = r.int(0, 3); i < n; i++) {
      const data = r.pick([box.wav, r.bytes(r.int(0, 500)), new Uint8Array(0)]);
      form.append(r.chance(0.95) ? "file" : "files", new Blob([data]), r.pick(["a.wav", "../x.wav", "", "ملف.wav"]));
    }
    for (let i = 0, n = r.int(0, 3); i < n; i++) {
      const name = r.pick(Object.keys(FIELDS));
      const value = r.pick(FIELDS[name]!);
      form.append(name, typeof value === "string" ? value : JSON.stringify(value));
    }
    if (r.chance(0.3)) form.append("callback_url", callbackUrl(box, r));
    return { label: "submit upload", method: "POST", path: "/v1/asr/jobs", init: { headers: auth, body: form } };
  }
  if (roll < 0.55) {
    const query = new URLSearchParams();
    if (r.chance(0.5)) query.set("status", r.pick(["queued", "running", "completed", "failed", "cancelled", "x", ""]));
    if (r.chance(0.5)) query.set("after", r.chance(0.6) ? known() : r.pick(NASTY_STRINGS));
    if (r.chance(0.5)) query.set("limit", r.pick(["1", "5", "100", "0", "-1", "1e9", "abc", "101"]));
    return { label: "list", method: "GET", path: `/v1/asr/jobs?${query}`, init: { headers: auth } };
  }
  const id = encodeURIComponent(known().toWellFormed());
  const choices: Call[] = [
    { label: "status", method: "GET", path: `/v1/asr/jobs/${id}`, init: { headers: auth } },
    {
      label: "result",
      method: "GET",
      path: `/v1/asr/jobs/${id}/files/${r.pick(["0", "1", "file_x", "-1"])}/result?response_format=${r.pick(["json", "srt", "x", ""])}`,
      init: { headers: auth },
    },
    { label: "cancel", method: "POST", path: `/v1/asr/jobs/${id}/cancel`, init: { headers: auth } },
    { label: "delete", method: "DELETE", path: `/v1/asr/jobs/${id}`, init: { headers: auth } },
    { label: "deliveries", method: "GET", path: `/v1/asr/jobs/${id}/deliveries`, init: { headers: auth } },
    { label: "other method", method: r.pick(["PUT", "PATCH"]), path: `/v1/asr/jobs/${id}`, init: { headers: auth } },
  ];
  return r.pick(choices);
}

/** The documented shapes of the success answers. */
function shapeProblems(call: Call, status: number, json: Json): string[] {
  if (call.label.startsWith("submit") && status === 202) {
    return typeof json.id === "string" && typeof json.status === "string" && Array.isArray(json.files)
      ? []
      : ["202 shape"];
  }
  if (call.label === "status" && status === 200) {
    return typeof json.id === "string" && typeof json.counts === "object" && Array.isArray(json.files)
      ? []
      : ["job shape"];
  }
  if (call.label === "list" && status === 200) {
    return json.object === "list" && Array.isArray(json.data) && typeof json.has_more === "boolean"
      ? []
      : ["list shape"];
  }
  return [];
}

async function send(box: Box, call: Call, tally: Tally): Promise<Json | undefined> {
  const response = await fetch(`${box.sawt.baseUrl}${call.path}`, { method: call.method, ...call.init });
  const text = await response.text();
  tally.see(`${call.label} ${response.status}`);
  for (const problem of checkHttpReply(call.method, response.status, response.headers, text, box.secrets))
    tally.breach(`${call.label} ${call.method} ${call.path.slice(0, 80)}: ${problem}`);
  let json: Json | undefined;
  try {
    json = JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
  for (const problem of shapeProblems(call, response.status, json)) tally.breach(`${call.label}: ${problem}`);
  return response.status < 300 ? json : undefined;
}

/** Follows `last_id` from the newest job; no job may come twice, and pages go newest first. */
async function walk(box: Box, r: Random, tally: Tally): Promise<void> {
  const seen = new Set<string>();
  let after = "";
  let newest = Infinity;
  for (let page = 0; page < 5; page++) {
    const limit = r.int(1, 20);
    const call: Call = {
      label: "list",
      method: "GET",
      path: `/v1/asr/jobs?limit=${limit}${after ? `&after=${after}` : ""}`,
      init: { headers: { "x-api-key": box.key } },
    };
    const json = await send(box, call, tally);
    const data = (json?.data ?? []) as Json[];
    for (const job of data) {
      const id = String(job.id);
      if (seen.has(id)) tally.breach(`a paging walk saw ${id} twice`);
      seen.add(id);
      const at = Number(job.created_at);
      if (at > newest) tally.breach("a paging walk went back to newer jobs");
      newest = Math.min(newest, at);
    }
    if (!json?.has_more || typeof json.last_id !== "string") return;
    after = json.last_id;
  }
}

async function run(box: Box, plan: DoorPlan): Promise<DoorTally> {
  const tally = newTally();
  const made: string[] = [];
  await inWorkers(plan, async (random, cases) => {
    for (let i = 0; i < cases; i++) {
      tally.cases++;
      if (random.chance(0.03)) {
        tally.see("paging walk");
        await walk(box, random, tally);
        continue;
      }
      const json = await send(box, drawCall(box, random, made), tally);
      if (json && typeof json.id === "string" && Array.isArray(json.files)) made.push(json.id);
    }
  });
  // None stuck: every job made reaches a final state (the worker transcribes a tone recording fast).
  // The worker takes a few files a second on a busy machine: time in proportion to what was made.
  const deadline = performance.now() + Math.max(120_000, made.length * 500);
  const headers = { "x-api-key": box.key };
  for (const id of new Set(made)) {
    for (;;) {
      const response = await fetch(`${box.sawt.baseUrl}/v1/asr/jobs/${id}`, { headers });
      const status =
        response.status === 200 ? String(((await response.json()) as Json).status) : `gone ${response.status}`;
      if (!["queued", "running"].includes(status)) break;
      if (performance.now() > deadline) {
        tally.breach(`job ${id} still ${status}`);
        break;
      }
      await Bun.sleep(100);
    }
    await fetch(`${box.sawt.baseUrl}/v1/asr/jobs/${id}`, { method: "DELETE", headers });
  }
  tally.see(`webhooks received ${box.hook.received}`);
  return tally;
}

/** One job with a webhook to the local listener, delivered: the webhook client is up. */
async function prepare(box: Box): Promise<void> {
  const before = box.hook.received;
  const response = await fetch(`${box.sawt.baseUrl}/v1/asr/jobs`, {
    method: "POST",
    headers: { "x-api-key": box.key, "content-type": "application/json" },
    body: JSON.stringify({ paths: ["a.wav"], callback_url: `http://127.0.0.1:${box.hook.port}/prepare` }),
  });
  if (response.status !== 202) throw new Error(`jobs door: the priming job answered ${response.status}`);
  const deadline = performance.now() + 60_000;
  while (box.hook.received === before && performance.now() < deadline) await Bun.sleep(50);
}

/** The jobs API. */
export const jobsDoor: FuzzDoor = {
  name: "jobs API",
  covers:
    "JSON and multipart submissions (paths inside, outside, through a symlink, missing, too many; every field; callback URLs allowed, refused, malformed), lists with filters, cursors and limits, paging walks, status, results, cancel, delete, deliveries, with and without a key",
  run,
  prepare,
  settleMs: 15_000,
};
