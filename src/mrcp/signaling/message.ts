/**
 * SIP messages (RFC 3261 §7): a strict, bounded parser and a serializer. Hand-written rather than
 * taken from npm (docs/mrcp.md says why): Sawt's UAS needs only requests in, responses and BYE
 * out, and every size must be bounded before anything is allocated for it.
 *
 * Header names are kept lower-case in their long form (compact forms `v`, `i`, `f`, `t`, `m`,
 * `l`, `c`, `k` are expanded); values keep their order. Comma-joined Via, Record-Route and Route
 * values are split (one value per hop).
 */

/** Bounds on one SIP message (UDP datagrams are bounded by the socket, TCP by these). */
export const SIP_LIMITS = {
  /** The whole message, start line to body. */
  maxMessageBytes: 16 * 1024,
  maxHeaders: 64,
  maxLineBytes: 2048,
  maxBodyBytes: 8 * 1024,
} as const;

/** A SIP request or response. */
export interface SipMessage {
  readonly method?: string;
  readonly uri?: string;
  readonly status?: number;
  readonly reason?: string;
  /** Lower-case long header names → values, in order. */
  readonly headers: Map<string, string[]>;
  readonly body: string;
}

/** A message that breaks the grammar or a bound; `status` is the response it deserves. */
export class SipParseError extends Error {
  constructor(
    readonly status: 400 | 413 | 505 | 513,
    message: string,
    /** What could be read before the problem (headers to answer with), if anything. */
    readonly partial?: SipMessage,
  ) {
    super(message);
    this.name = "SipParseError";
  }
}

const COMPACT: Record<string, string> = {
  v: "via",
  i: "call-id",
  f: "from",
  t: "to",
  m: "contact",
  l: "content-length",
  c: "content-type",
  k: "supported",
  s: "subject",
  e: "content-encoding",
};

/** Headers whose comma-joined values are separate hops (RFC 3261 §7.3.1 allows either form). */
const SPLIT = new Set(["via", "record-route", "route"]);

const TOKEN = /^[A-Za-z0-9.!%*_+`'~-]+$/;
const REQUEST_LINE = /^([A-Za-z0-9.!%*_+`'~-]+) (\S+) SIP\/(\d{1,3}\.\d{1,3})$/;
const STATUS_LINE = /^SIP\/2\.0 ([1-6]\d\d) ([^\r\n]*)$/;

/** The first value of a header, or undefined. */
export function header(message: SipMessage, name: string): string | undefined {
  return message.headers.get(name)?.[0];
}

/**
 * Parses one message. `bytes` is a whole datagram, or on TCP exactly one framed message (see
 * {@link sipFrameLength}). Throws {@link SipParseError}, with the headers read when the message
 * had them, so that it can be answered as RFC 3261 says: 505 for another SIP version (§21.5.7),
 * 513 for a message or header section over the bounds (§21.5.14), 413 for a body over its bound
 * (§21.4.11), 400 for the rest. A message over the bound is read no further than the bound.
 */
export function parseSip(bytes: Uint8Array): SipMessage {
  const tooLarge = bytes.length > SIP_LIMITS.maxMessageBytes;
  const text = new TextDecoder("utf-8", { fatal: false }).decode(
    tooLarge ? bytes.subarray(0, SIP_LIMITS.maxMessageBytes) : bytes,
  );
  const split = text.indexOf("\r\n\r\n");
  if (split < 0) throw new SipParseError(tooLarge ? 513 : 400, tooLarge ? "Message too large" : "No end of headers");
  const lines = text.slice(0, split).split("\r\n");
  const body = text.slice(split + 4);
  const start = lines.shift() ?? "";
  const headers = new Map<string, string[]>();
  const request = REQUEST_LINE.exec(start);
  const status = request ? null : STATUS_LINE.exec(start);
  if (!request && !status) {
    if (/^\S+ \S+ SIP\/\d/.test(start)) throw new SipParseError(505, "Version not supported");
    throw new SipParseError(400, "Bad start line");
  }
  const otherVersion = request !== null && request[3] !== "2.0";
  const message: SipMessage = request
    ? { method: request[1]!.toUpperCase(), uri: request[2]!, headers, body }
    : { status: Number(status![1]), reason: status![2]!, headers, body };
  // A bad or oversized line is skipped and the first problem kept, so that the headers a
  // response copies are read wherever they stand and the problem can be answered.
  let problem: SipParseError | undefined;
  const fail = (status: 400 | 513, reason: string) => {
    problem ??= new SipParseError(status, reason, message);
  };
  if (lines.length > SIP_LIMITS.maxHeaders) fail(513, "Too many headers");
  let last: string[] | undefined;
  for (const line of lines.slice(0, SIP_LIMITS.maxHeaders)) {
    if (line.length > SIP_LIMITS.maxLineBytes) {
      fail(513, "Header line too long");
      last = undefined;
      continue;
    }
    if (/^[ \t]/.test(line)) {
      // Folded continuation of the previous header (RFC 3261 §7.3.1); a value that was empty stays
      // empty when only whitespace is folded onto it (a From of " " is no From).
      if (!last || last.length === 0) fail(400, "Continuation without a header");
      else last[last.length - 1] = `${last[last.length - 1]} ${line.trim()}`.trim();
      continue;
    }
    const colon = line.indexOf(":");
    const rawName = colon > 0 ? line.slice(0, colon).trim() : "";
    if (!TOKEN.test(rawName)) {
      fail(400, "Bad header line");
      last = undefined;
      continue;
    }
    const lower = rawName.toLowerCase();
    const name = COMPACT[lower] ?? lower;
    const value = line.slice(colon + 1).trim();
    const values = headers.get(name) ?? [];
    if (SPLIT.has(name)) values.push(...splitCommas(value));
    else values.push(value);
    headers.set(name, values);
    last = values;
  }
  for (const required of ["via", "from", "to", "call-id", "cseq"]) {
    if (!headers.get(required)?.[0]) throw problem ?? new SipParseError(400, `Missing ${required} header`, message);
  }
  if (problem) throw problem;
  if (otherVersion) throw new SipParseError(505, "Version Not Supported", message);
  if (tooLarge) throw new SipParseError(513, "Message Too Large", message);
  const cseq = /^(\d{1,10}) ([A-Za-z]+)$/.exec(header(message, "cseq")!);
  if (!cseq || Number(cseq[1]) > 2 ** 31 - 1) throw new SipParseError(400, "Bad CSeq header", message);
  if (request && cseq[2]!.toUpperCase() !== message.method)
    throw new SipParseError(400, "CSeq method mismatch", message);
  const length = header(message, "content-length");
  if (length !== undefined && !/^\d{1,6}$/.test(length)) throw new SipParseError(400, "Bad Content-Length", message);
  const bodyBytes = new TextEncoder().encode(body).length;
  if (bodyBytes > SIP_LIMITS.maxBodyBytes) throw new SipParseError(413, "Body too large", message);
  if (length !== undefined && Number(length) > bodyBytes)
    throw new SipParseError(400, "Body shorter than Content-Length", message);
  if (length !== undefined && Number(length) < bodyBytes) {
    return { ...message, body: new TextDecoder().decode(new TextEncoder().encode(body).subarray(0, Number(length))) };
  }
  return message;
}

/**
 * On a TCP stream: the byte length of the first complete message in `buffer`, 0 when more bytes
 * are needed; throws {@link SipParseError} when the head is over the bound or has no usable length.
 */
export function sipFrameLength(buffer: Uint8Array): number {
  const limit = Math.min(buffer.length, SIP_LIMITS.maxMessageBytes);
  let end = -1;
  for (let i = 3; i < limit; i++) {
    if (buffer[i] === 10 && buffer[i - 1] === 13 && buffer[i - 2] === 10 && buffer[i - 3] === 13) {
      end = i + 1;
      break;
    }
  }
  if (end < 0) {
    if (buffer.length >= SIP_LIMITS.maxMessageBytes) throw new SipParseError(513, "Headers too large");
    return 0;
  }
  const head = new TextDecoder().decode(buffer.subarray(0, end));
  const match = /\r\n(?:content-length|l)[ \t]*:[ \t]*(\d{1,6})[ \t]*\r\n/i.exec(head);
  // RFC 3261 §18.3: on a stream, Content-Length is mandatory.
  if (!match) throw new SipParseError(400, "Missing Content-Length on a stream");
  const total = end + Number(match[1]);
  if (total > SIP_LIMITS.maxMessageBytes) throw new SipParseError(513, "Message too large");
  return buffer.length >= total ? total : 0;
}

function splitCommas(value: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let startAt = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '"' && value[i - 1] !== "\\") quoted = !quoted;
    else if (!quoted && c === "<") depth++;
    else if (!quoted && c === ">") depth--;
    else if (!quoted && depth === 0 && c === ",") {
      parts.push(value.slice(startAt, i).trim());
      startAt = i + 1;
    }
  }
  parts.push(value.slice(startAt).trim());
  return parts.filter((p) => p.length > 0);
}

/** A header parameter (`;tag=`, `;branch=`) of a value, or undefined. */
export function headerParam(value: string | undefined, name: string): string | undefined {
  if (!value) return undefined;
  const afterAddress = value.includes(">") ? value.slice(value.lastIndexOf(">")) : value;
  const match = new RegExp(`;\\s*${name}\\s*=\\s*([^;\\s,]+)`, "i").exec(afterAddress);
  return match?.[1];
}

/** The user part of a SIP URI (`sip:user@host`), or undefined. */
export function uriUser(uri: string | undefined): string | undefined {
  const match = /^(?:.*<)?sips?:([^@;>]+)@/i.exec(uri ?? "");
  return match?.[1];
}

/** The URI inside a name-addr (`"x" <sip:a@b>;tag=1` → `sip:a@b`). */
export function addressUri(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const angle = /<([^>]*)>/.exec(value);
  return angle ? angle[1] : value.split(";")[0]!.trim();
}

const REASONS: Record<number, string> = {
  100: "Trying",
  200: "OK",
  400: "Bad Request",
  403: "Forbidden",
  405: "Method Not Allowed",
  413: "Request Entity Too Large",
  415: "Unsupported Media Type",
  481: "Call/Transaction Does Not Exist",
  486: "Busy Here",
  487: "Request Terminated",
  488: "Not Acceptable Here",
  500: "Server Internal Error",
  501: "Not Implemented",
  503: "Service Unavailable",
  505: "Version Not Supported",
  513: "Message Too Large",
};

/** Serializes a message; Content-Length is computed, any given one is replaced. */
export function serializeSip(message: SipMessage): Uint8Array {
  const body = new TextEncoder().encode(message.body);
  const start =
    message.method !== undefined
      ? `${message.method} ${message.uri} SIP/2.0`
      : `SIP/2.0 ${message.status} ${message.reason ?? REASONS[message.status!] ?? "Unknown"}`;
  const lines = [start];
  for (const [name, values] of message.headers) {
    if (name === "content-length") continue;
    for (const value of values) lines.push(`${canonicalName(name)}: ${value}`);
  }
  lines.push(`Content-Length: ${body.length}`);
  const head = new TextEncoder().encode(`${lines.join("\r\n")}\r\n\r\n`);
  const out = new Uint8Array(head.length + body.length);
  out.set(head);
  out.set(body, head.length);
  return out;
}

const CANONICAL: Record<string, string> = {
  "call-id": "Call-ID",
  cseq: "CSeq",
  "www-authenticate": "WWW-Authenticate",
};

function canonicalName(name: string): string {
  return CANONICAL[name] ?? name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}

/**
 * A response to `request` (RFC 3261 §8.2.6): Via, From, Call-ID and CSeq copied, To copied with
 * `toTag` added when it has none. To an INVITE, a 2xx or a 1xx other than 100 also carries every
 * Record-Route value in order (§12.1.1): a record-routing proxy learns it stays in the dialog only
 * from there. `extra` headers and `body` are appended.
 */
export function responseTo(
  request: SipMessage,
  status: number,
  options: { toTag?: string; reason?: string; extra?: [string, string][]; body?: string } = {},
): SipMessage {
  const headers = new Map<string, string[]>();
  const dialog = request.method === "INVITE" && status > 100 && status < 300;
  for (const name of ["via", "record-route", "from", "to", "call-id", "cseq"]) {
    if (name === "record-route" && !dialog) continue;
    const values = request.headers.get(name);
    if (values) headers.set(name, [...values]);
  }
  const to = headers.get("to")?.[0];
  if (to && options.toTag && !headerParam(to, "tag") && status > 100) headers.set("to", [`${to};tag=${options.toTag}`]);
  headers.set("server", ["Sawt"]);
  for (const [name, value] of options.extra ?? []) headers.set(name, [...(headers.get(name) ?? []), value]);
  return { status, reason: options.reason, headers, body: options.body ?? "" };
}
