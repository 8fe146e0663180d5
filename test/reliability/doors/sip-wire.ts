/**
 * SIP as the fuzzer writes and reads it: a well-formed request of any method, the mutations that
 * break it (start line, headers, folding, Content-Length lies, truncation, size, bytes), and the
 * contract every answer must hold (docs/mrcp.md "Limits and metrics"): a SIP/2.0 status line with
 * a status the door answers with and the headers a response copies (the door checks that an ACK
 * gets no answer at all).
 */
import type { Random } from "../fuzz/random.ts";

/** Statuses the SIP door's contract allows (RFC 3261's and docs/mrcp.md's). */
export const SIP_STATUSES: ReadonlySet<number> = new Set([
  100, 200, 400, 403, 405, 413, 415, 481, 487, 488, 501, 503, 505, 513,
]);

/** The fields of a request before it is written. */
export interface SipDraft {
  method: string;
  uri: string;
  version: string;
  headers: [string, string][];
  body: string;
}

let counter = 0;
/** A unique token (Call-IDs, tags, branches). */
export const token = (random: Random) => `${(++counter).toString(36)}${random.int(0, 2 ** 30).toString(36)}`;

/** A well-formed request from `from` (host:port) to the box. */
export function draft(
  random: Random,
  method: string,
  options: { from: string; sipPort: number; transport: "UDP" | "TCP"; body?: string; toTag?: string },
): SipDraft {
  const body = options.body ?? "";
  const headers: [string, string][] = [
    ["Via", `SIP/2.0/${options.transport} ${options.from};branch=z9hG4bK${token(random)};rport`],
    ["Max-Forwards", "70"],
    ["From", `<sip:ivr@${options.from}>;tag=${token(random)}`],
    ["To", `<sip:sawt@127.0.0.1:${options.sipPort}>${options.toTag ? `;tag=${options.toTag}` : ""}`],
    ["Call-ID", `${token(random)}@fuzz`],
    ["CSeq", `${random.int(1, 1000)} ${method}`],
    ["Contact", `<sip:ivr@${options.from}>`],
  ];
  if (body) headers.push(["Content-Type", "application/sdp"]);
  headers.push(["Content-Length", String(Buffer.byteLength(body))]);
  return { method, uri: `sip:sawt@127.0.0.1:${options.sipPort}`, version: "SIP/2.0", headers, body };
}

/** The request's text. */
export function write(d: SipDraft): string {
  return `${d.method} ${d.uri} ${d.version}\r\n${d.headers.map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n${d.body}`;
}

/** The Call-ID a draft carries (undefined once a mutation removed it). */
export function callIdOf(d: SipDraft): string | undefined {
  return d.headers.find(([k]) => k.toLowerCase() === "call-id" || k === "i")?.[1];
}

const NAMES = ["Via", "From", "To", "Call-ID", "CSeq", "Max-Forwards", "Contact", "Content-Length", "Content-Type"];
const COMPACT: Record<string, string> = { Via: "v", From: "f", To: "t", "Call-ID": "i", Contact: "m" };

/** Mutations of the draft's fields (the message still has a start line and a header section). */
const DRAFT_MUTATIONS: Record<string, (d: SipDraft, r: Random) => void> = {
  "start line: version": (d, r) => void (d.version = r.pick(["SIP/3.0", "SIP/1.0", "SIP/2.00", "sip/2.0", "HTTP/1.1"])),
  "start line: method": (d, r) =>
    void (d.method = r.pick(["invite", "INV ITE", "", "GET", "X".repeat(r.int(1, 300)), "REGISTER", "PRACK"])),
  "start line: uri": (d, r) => void (d.uri = r.pick(["", "sip:", "<>", "tel:+1", "sip:a b@c", "x".repeat(3000)])),
  "header: drop": (d, r) => void d.headers.splice(r.int(0, d.headers.length - 1), 1),
  "header: duplicate": (d, r) => void d.headers.push(r.pick(d.headers)),
  "header: empty value": (d, r) => void (r.pick(d.headers)[1] = ""),
  "header: bad name": (d, r) => void d.headers.push([r.pick(["", "Bad Name", "X:Y", "Ü", "\u0000"]), "v"]),
  "header: no colon": (d) => void d.headers.push(["Just a line without a colon", "\u0000"]),
  "header: compact": (d) => {
    for (const h of d.headers) if (COMPACT[h[0]]) h[0] = COMPACT[h[0]]!;
  },
  "header: folded": (d, r) => {
    const h = r.pick(d.headers);
    h[1] = `${h[1]}\r\n ${r.pick(["continued", "", ";x=y"])}`;
  },
  "header: fold first": (d) => void d.headers.unshift([" folded", "first"]),
  "header: long line": (d, r) => void d.headers.push(["X-Long", "x".repeat(r.int(2000, 5000))]),
  "header: many": (d, r) => {
    for (let i = 0, n = r.int(60, 80); i < n; i++) d.headers.push([`X-H${i}`, "v"]);
  },
  "header: random value": (d, r) => void (r.pick(d.headers)[1] = r.text(r.int(0, 40))),
  "cseq: bad": (d, r) => {
    const h = d.headers.find(([k]) => k === "CSeq");
    if (h) h[1] = r.pick(["x INVITE", "1", "99999999999 OPTIONS", "-1 BYE", `1 ${r.pick(["ACK", "BYE", "FOO"])}`]);
  },
  "content-length: lie": (d, r) => {
    const h = d.headers.find(([k]) => k === "Content-Length");
    if (h) h[1] = r.pick([String(Number(h[1]) + r.int(1, 500)), "-1", "abc", "99999999", "1e3", " 0"]);
  },
  "content-length: short": (d, r) => {
    d.body += r.text(r.int(1, 100));
  },
  "body: large": (d, r) => {
    d.body = "v=0\r\n".repeat(r.int(1700, 4000));
    const h = d.headers.find(([k]) => k === "Content-Length");
    if (h) h[1] = String(Buffer.byteLength(d.body));
  },
  "via: mangled": (d, r) => {
    const h = d.headers.find(([k]) => k === "Via");
    if (h)
      h[1] = r.pick(["SIP/2.0/UDP", "SIP/2.0/SCTP 1.2.3.4;branch=", "garbage", "SIP/2.0/UDP h:99999;branch=z9hG4bK,x"]);
  },
  "from/to: tag games": (d, r) => {
    const h = d.headers.find(([k]) => k === r.pick(["From", "To"]));
    if (h) h[1] = `${h[1]};tag=${r.pick(["", "x", ";;", "a".repeat(500)])}`;
  },
};

/** Mutations of the written bytes (anything may break). */
const BYTE_MUTATIONS: Record<string, (text: string, r: Random) => Uint8Array> = {
  truncated: (t, r) => Buffer.from(t.slice(0, r.int(0, t.length - 1))),
  "random bytes": (_t, r) => r.bytes(r.int(1, 600)),
  "nul bytes": (t, r) => {
    const bytes = Buffer.from(t);
    for (let i = 0, n = r.int(1, 5); i < n; i++) bytes[r.int(0, bytes.length - 1)] = 0;
    return bytes;
  },
  "invalid utf-8": (t, r) =>
    Buffer.concat([
      Buffer.from(t.slice(0, r.int(0, 60))),
      Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
      Buffer.from(t.slice(60)),
    ]),
  "lf only": (t) => Buffer.from(t.replace(/\r\n/g, "\n")),
  "no blank line": (t) => Buffer.from(t.replace("\r\n\r\n", "\r\n")),
  huge: (t, r) => Buffer.from(t.replace("\r\n\r\n", `\r\nX-Pad: ${"p".repeat(r.int(16_000, 60_000))}\r\n\r\n`)),
  "leading crlf": (t) => Buffer.from(`\r\n\r\n${t}`),
};

/** A case's message and what it was made of. */
export interface SipCase {
  readonly label: string;
  readonly bytes: Uint8Array;
  readonly method: string;
  readonly callId: string | undefined;
  /** Untouched: the box must answer it (finally, unless it is an ACK). */
  readonly wellFormed: boolean;
}

/** Draws a mutated (or, sometimes, untouched) version of `d`. */
export function mutate(d: SipDraft, random: Random, pristine = 0.25): SipCase {
  const method = d.method;
  if (random.chance(pristine)) {
    return {
      label: `${method} well-formed`,
      bytes: Buffer.from(write(d)),
      method,
      callId: callIdOf(d),
      wellFormed: true,
    };
  }
  const names: string[] = [];
  for (let i = 0, n = random.int(1, 3); i < n; i++) {
    const name = random.pick(Object.keys(DRAFT_MUTATIONS));
    DRAFT_MUTATIONS[name]!(d, random);
    names.push(name);
  }
  // The start line's method as sent (a mutation may have changed it): an ACK is never answered.
  const sent = d.method;
  let bytes: Uint8Array = Buffer.from(write(d));
  if (random.chance(0.3)) {
    const name = random.pick(Object.keys(BYTE_MUTATIONS));
    bytes = BYTE_MUTATIONS[name]!(write(d), random);
    names.push(name);
  }
  return { label: names[0]!, bytes, method: sent, callId: callIdOf(d), wellFormed: false };
}

/** A SIP response as read back. */
export interface SipAnswer {
  readonly status: number;
  readonly text: string;
  header(name: string): string | undefined;
}

/** Reads a response; undefined when the bytes are not one. */
export function readAnswer(text: string): SipAnswer | undefined {
  const m = /^SIP\/2\.0 (\d{3}) [^\r\n]*\r\n/.exec(text);
  if (!m) return undefined;
  const head = text.slice(0, Math.max(0, text.indexOf("\r\n\r\n")));
  return {
    status: Number(m[1]),
    text,
    header: (name) => new RegExp(`^${name}:[ \\t]*(.*)$`, "im").exec(head)?.[1]?.trim(),
  };
}

/** Problems of one answer from the box (empty when it holds the contract). */
export function answerProblems(text: string): string[] {
  const answer = readAnswer(text);
  if (!answer) {
    // The box sends requests of its own only inside a dialog: its BYE.
    return /^BYE sip:\S+ SIP\/2\.0\r\n/.test(text) ? [] : [`not a SIP response: ${JSON.stringify(text.slice(0, 60))}`];
  }
  const problems: string[] = [];
  if (!SIP_STATUSES.has(answer.status)) problems.push(`status ${answer.status}`);
  for (const name of ["Via", "From", "To", "Call-ID", "CSeq"])
    if (!answer.header(name)) problems.push(`${answer.status} without ${name}`);
  // The answer itself, so a seed's run can be read back.
  return problems.map((p) => `${p}: ${escaped(text.slice(0, 400))}`);
}

/** `text` as a JSON string with every character outside printable ASCII written as \\uXXXX. */
export function escaped(text: string): string {
  return JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
