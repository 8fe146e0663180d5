/**
 * MRCP requests for the fuzzer: every method of both resources and others, on the right channel,
 * the other one, an unknown one or none; request ids in order, repeated or far ahead; headers of
 * both resources with good and bad values; bodies — plain text and SSML to speak, SRGS grammars
 * (valid, broken, with entity expansion, external entities naming a file or a URL, oversized),
 * builtin and fetchable URIs; and Content-Length lies. Framing-level breaks (start-line lengths,
 * versions, garbage) are drawn apart, for throwaway connections.
 */
import type { Random } from "../fuzz/random.ts";
import { request } from "./mrcp-wire.ts";

const SYNTH = ["SPEAK", "STOP", "PAUSE", "RESUME", "BARGE-IN-OCCURRED", "CONTROL", "DEFINE-LEXICON"];
const RECOG = ["DEFINE-GRAMMAR", "RECOGNIZE", "INTERPRET", "GET-RESULT", "START-INPUT-TIMERS", "STOP"];
const COMMON = ["SET-PARAMS", "GET-PARAMS", "FOO", "speak", "RECORD", "VERIFY"];

/** A host no request may make the box contact (TEST-NET-2, RFC 5737; not a webhook host). */
export const FORBIDDEN_HOST = "198.51.100.7";

const HEADERS: readonly [string, readonly string[]][] = [
  ["Voice-Name", ["Yara", "Sherine", "Myriam", "Yara_en", "nobody", "", "x".repeat(300)]],
  ["Speech-Language", ["ar-SA", "ar-EG", "en-US", "xx", "", "ar-LB;q=1"]],
  ["Prosody-Rate", ["fast", "x-slow", "1.5", "0", "-3", "200%", "NaN", "1e999"]],
  ["Vendor-Specific-Parameters", ["sawt.dialect=ar-hijazi", "sawt.dialect=", "a=b;c", "=;="]],
  ["Kill-On-Barge-In", ["true", "false", "maybe"]],
  ["No-Input-Timeout", ["100", "5000", "-1", "abc", "99999999999", "0"]],
  ["Recognition-Timeout", ["200", "0", "x", "3600001"]],
  ["Speech-Complete-Timeout", ["300", "-5", "60001"]],
  ["Speech-Incomplete-Timeout", ["100", "z"]],
  ["Confidence-Threshold", ["0.5", "2", "-1", "x", "0.99999"]],
  ["N-Best-List-Length", ["1", "0", "101", "-2"]],
  ["Start-Input-Timers", ["true", "false", "yes"]],
  ["DTMF-Term-Char", ["#", "*", "", "##", "x"]],
  ["DTMF-Interdigit-Timeout", ["100", "-1"]],
  ["Active-Request-Id-List", ["1", "1,2,3", "x", "99999999999"]],
  ["Content-Id", ["g1", "<menu>", "", "a@b"]],
  ["Cancel-If-Queue", ["true", "false"]],
  ["Logging-Tag", ["x"]],
  ["X-Unknown", ["whatever"]],
];

const SRGS = (items: string) =>
  `<?xml version="1.0"?><grammar xmlns="http://www.w3.org/2001/06/grammar" version="1.0" root="r" xml:lang="ar"><rule id="r"><one-of>${items}</one-of></rule></grammar>`;

const BODIES: Record<string, (r: Random) => [string, string]> = {
  text: (r) => ["text/plain", r.pick(["مرحبا", "نعم", "hello", "", "١٢٣", "\u202eabc", "<>&"])],
  ssml: (r) => [
    "application/ssml+xml",
    r.pick([
      `<speak version="1.0" xml:lang="ar"><s>مرحبا</s><break time="50ms"/></speak>`,
      "<speak><p><s>",
      `<speak>${"<prosody rate='fast'>".repeat(200)}نعم${"</prosody>".repeat(200)}</speak>`,
      `<?xml version="1.0"?><!DOCTYPE speak [<!ENTITY x SYSTEM "file:///etc/passwd">]><speak>&x;</speak>`,
    ]),
  ],
  grammar: (r) => [
    "application/srgs+xml",
    SRGS(r.pick(["<item>نعم</item><item>لا</item>", "<item>", "", "<item>واحد</item>"])),
  ],
  "entity expansion": () => [
    "application/srgs+xml",
    `<?xml version="1.0"?><!DOCTYPE g [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>${SRGS("<item>&d;</item>")}`,
  ],
  "external entity": (r) => [
    "application/srgs+xml",
    `<?xml version="1.0"?><!DOCTYPE g [<!ENTITY x SYSTEM "${r.pick(["file:///etc/passwd", `http://${FORBIDDEN_HOST}/g.xml`])}">]>${SRGS("<item>&x;</item>")}`,
  ],
  "oversized grammar": (r) => ["application/srgs+xml", SRGS("<item>نعم</item>".repeat(r.int(4000, 6000)))],
  "uri-list": (r) =>
    [
      "text/uri-list",
      r.pick([
        "builtin:speech/transcribe",
        "builtin:dtmf/digits?length=4",
        "builtin:dtmf/digits?minlength=9;maxlength=2",
        "session:g1",
        "session:nothing",
        `http://${FORBIDDEN_HOST}/grammar.grxml`,
        "file:///etc/passwd",
        "builtin:nothing",
        "",
      ]),
    ] as [string, string],
  "odd type": (r) => [r.pick(["application/json", "", "text/html", "application/x-foo"]), r.text(r.int(0, 50))],
};

/** One drawn request. */
export interface MrcpCase {
  readonly label: string;
  readonly bytes: Buffer;
  readonly method: string;
  /** The id the box must answer exactly once: every framed request is answered, whatever it holds. */
  readonly requestId: number;
}

/** Draws a request on this session's `channels`; `nextId` is the worker's next in-order id. */
export function drawRequest(random: Random, channels: { synth: string; recog: string }, nextId: number): MrcpCase {
  const resource = random.pick(["synth", "recog"] as const);
  const method = random.chance(0.12) ? random.pick(COMMON) : random.pick(resource === "synth" ? SYNTH : RECOG);
  const labels = [method];
  let channel: string | undefined = channels[resource];
  const channelRoll = random.next();
  if (channelRoll < 0.05) channel = undefined;
  else if (channelRoll < 0.1) channel = `${random.int(0, 2 ** 30).toString(16)}@speechsynth`;
  else if (channelRoll < 0.15) channel = channels[resource === "synth" ? "recog" : "synth"];
  if (channel !== channels[resource]) labels.push("channel");
  let requestId = nextId;
  const idRoll = random.next();
  if (idRoll < 0.04) requestId = Math.max(1, nextId - random.int(1, 5));
  else if (idRoll < 0.06) requestId = nextId + random.int(1, 1000);
  const headers: [string, string][] = channel === undefined ? [] : [["Channel-Identifier", channel]];
  for (let i = 0, n = random.int(0, 4); i < n; i++) {
    const [name, values] = random.pick(HEADERS);
    headers.push([random.chance(0.1) ? name.toLowerCase() : name, random.pick(values)]);
  }
  if (random.chance(0.02)) for (let i = 0; i < 70; i++) headers.push([`X-H${i}`, "v"]);
  let body = "";
  if (["SPEAK", "DEFINE-GRAMMAR", "RECOGNIZE", "INTERPRET", "DEFINE-LEXICON"].includes(method) || random.chance(0.1)) {
    const kind = random.pick(Object.keys(BODIES));
    const [type, text] = BODIES[kind]!(random);
    labels.push(kind);
    body = text;
    if (type) headers.push(["Content-Type", type]);
  }
  const bodyBytes = Buffer.byteLength(body);
  const lengthRoll = random.next();
  if (body && lengthRoll < 0.04) {
    headers.push(["Content-Length", String(bodyBytes + random.int(1, 50))]); // longer than the body: 408
    labels.push("content-length long");
  } else if (body && lengthRoll < 0.08) {
    headers.push(["Content-Length", String(random.int(0, bodyBytes))]); // shorter: the body is cut
    labels.push("content-length short");
  } else if (lengthRoll < 0.1) {
    headers.push(["Content-Length", random.pick(["x", "-1", "99999999"])]);
    labels.push("content-length bad");
  } else if (body) headers.push(["Content-Length", String(bodyBytes)]);
  return { label: labels.join(" "), bytes: request(method, requestId, headers, body), method, requestId };
}

/** Framing breaks, for a throwaway connection. */
export function drawBroken(random: Random, channel: string): { label: string; bytes: Buffer } {
  const good = request("GET-PARAMS", random.int(1, 1000), [["Channel-Identifier", channel]]);
  const kinds: Record<string, () => Buffer> = {
    "length shorter than its start line": () =>
      request("SPEAK", 1, [["Channel-Identifier", channel]], "", { exact: 5 }),
    "length longer than the message": () =>
      request("STOP", 2, [["Channel-Identifier", channel]], "", { off: random.int(1, 500) }),
    "length over 256 KiB": () => request("SPEAK", 3, [], "", { exact: 300_000 }),
    "version 1.0": () => Buffer.from(good.toString().replace("MRCP/2.0", "MRCP/1.0")),
    garbage: () => Buffer.from(random.bytes(random.int(1, 400))),
    "start line only": () => Buffer.from(`MRCP/2.0 40 SPEAK 1\r\n`),
    "long start line": () => Buffer.from(`MRCP/2.0 ${"9".repeat(5000)}`),
    "bad header line": () => Buffer.from(good.toString().replace("Channel-Identifier:", "Channel Identifier")),
    "lf only": () => Buffer.from(good.toString().replace(/\r\n/g, "\n")),
    pipelined: () => Buffer.concat([good, good, request("STOP", 1, [["Channel-Identifier", channel]])]),
  };
  const label = random.pick(Object.keys(kinds));
  return { label, bytes: kinds[label]!() };
}
