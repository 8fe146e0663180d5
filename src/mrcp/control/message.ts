/**
 * MRCPv2 messages (RFC 6787 §5): the start line carries the whole message's length, so a TCP
 * stream is framed by it. Requests come in; responses and events go out. A message that breaks the
 * grammar is answered with the RFC's status code and the stream is resynchronised at the next
 * start line: a bad message never drops the connection.
 */

/** Bounds on one MRCP message. */
export const MRCP_LIMITS = { maxMessageBytes: 256 * 1024, maxHeaders: 64, maxLineBytes: 4096 } as const;

/** Request states (§5.3). */
export type RequestState = "PENDING" | "IN-PROGRESS" | "COMPLETE";

/** A request from the client. */
export interface MrcpRequest {
  readonly method: string;
  readonly requestId: number;
  /** Lower-case header names → value (the last wins). */
  readonly headers: Map<string, string>;
  readonly body: string;
}

/** Status codes of §5.4 used here. */
export const MrcpStatus = {
  SUCCESS: 200,
  SUCCESS_IGNORED: 201,
  METHOD_NOT_ALLOWED: 401,
  METHOD_NOT_VALID: 402,
  UNSUPPORTED_HEADER: 403,
  ILLEGAL_VALUE: 404,
  NOT_ALLOCATED: 405,
  MANDATORY_MISSING: 406,
  METHOD_FAILED: 407,
  UNSUPPORTED_ENTITY: 408,
  UNSUPPORTED_VALUE: 409,
  OUT_OF_ORDER: 410,
  INTERNAL: 501,
  VERSION: 502,
  TOO_LARGE: 504,
} as const;

/** One step of reading a stream: a request, a problem to answer, or nothing yet. */
export type MrcpFrame =
  | { readonly kind: "request"; readonly request: MrcpRequest }
  | { readonly kind: "error"; readonly status: number; readonly requestId: number; readonly reason: string };

const START = new TextEncoder().encode("MRCP/");

function findStart(buffer: Uint8Array, from: number): number {
  outer: for (let i = from; i <= buffer.length - START.length; i++) {
    for (let j = 0; j < START.length; j++) if (buffer[i + j] !== START[j]) continue outer;
    return i;
  }
  return -1;
}

/** Reads framed MRCP messages from a TCP byte stream. */
export class MrcpReader {
  private buffer = new Uint8Array(0);

  /** Appends bytes and returns every complete frame now available. */
  push(bytes: Uint8Array): MrcpFrame[] {
    const joined = new Uint8Array(this.buffer.length + bytes.length);
    joined.set(this.buffer);
    joined.set(bytes, this.buffer.length);
    this.buffer = joined;
    const frames: MrcpFrame[] = [];
    for (;;) {
      const frame = this.next();
      if (!frame) break;
      frames.push(frame);
    }
    return frames;
  }

  private skipTo(from: number): void {
    const at = findStart(this.buffer, from);
    if (at >= 0) {
      this.buffer = this.buffer.slice(at);
      return;
    }
    // Keep only a tail that may be the start of a split "MRCP/".
    let keep = Math.min(START.length - 1, this.buffer.length);
    while (keep > 0 && !START.subarray(0, keep).every((b, i) => this.buffer[this.buffer.length - keep + i] === b))
      keep--;
    this.buffer = this.buffer.slice(this.buffer.length - keep);
  }

  private next(): MrcpFrame | undefined {
    if (this.buffer.length === 0) return undefined;
    if (findStart(this.buffer, 0) !== 0) {
      const garbage = this.buffer.length >= START.length;
      this.skipTo(1);
      return garbage
        ? { kind: "error", status: MrcpStatus.UNSUPPORTED_ENTITY, requestId: 0, reason: "Not an MRCP message" }
        : undefined;
    }
    const lineEnd = this.buffer.indexOf(10);
    if (lineEnd < 0) {
      if (this.buffer.length > MRCP_LIMITS.maxLineBytes) {
        this.skipTo(1);
        return { kind: "error", status: MrcpStatus.TOO_LARGE, requestId: 0, reason: "Start line too long" };
      }
      return undefined;
    }
    const line = new TextDecoder().decode(this.buffer.subarray(0, lineEnd)).replace(/\r$/, "");
    const m = /^MRCP\/(\d+\.\d+) (\d{1,10}) ([A-Za-z-]+) (\d{1,10})$/.exec(line);
    const requestId = Number(/ (\d{1,10})$/.exec(line)?.[1] ?? 0);
    if (!m) {
      this.skipTo(1);
      return { kind: "error", status: MrcpStatus.UNSUPPORTED_ENTITY, requestId, reason: "Bad start line" };
    }
    if (m[1] !== "2.0") {
      this.skipTo(1);
      return { kind: "error", status: MrcpStatus.VERSION, requestId, reason: "Protocol version not supported" };
    }
    const length = Number(m[2]);
    if (length > MRCP_LIMITS.maxMessageBytes) {
      this.skipTo(1);
      return { kind: "error", status: MrcpStatus.TOO_LARGE, requestId, reason: "Message too large" };
    }
    if (length <= lineEnd + 1) {
      this.skipTo(1);
      return {
        kind: "error",
        status: MrcpStatus.UNSUPPORTED_ENTITY,
        requestId,
        reason: "Message length shorter than its start line",
      };
    }
    if (this.buffer.length < length) {
      // A length longer than what follows: if the next message's start line already arrived,
      // the length was wrong; answer it and resynchronise there instead of waiting forever.
      const nextStart = findStart(this.buffer, lineEnd + 1);
      if (nextStart > 0 && this.looksLikeStart(nextStart)) {
        this.buffer = this.buffer.slice(nextStart);
        return {
          kind: "error",
          status: MrcpStatus.UNSUPPORTED_ENTITY,
          requestId,
          reason: "Message length longer than the message",
        };
      }
      return undefined;
    }
    const message = this.buffer.subarray(0, length);
    this.buffer = this.buffer.slice(length);
    return parseBody(message, lineEnd, m[3]!.toUpperCase(), requestId);
  }

  private looksLikeStart(at: number): boolean {
    const end = this.buffer.indexOf(10, at);
    if (end < 0) return false;
    return /^MRCP\/\d+\.\d+ \d+ \S+ \d+/.test(new TextDecoder().decode(this.buffer.subarray(at, end)));
  }
}

function parseBody(message: Uint8Array, lineEnd: number, method: string, requestId: number): MrcpFrame {
  const text = new TextDecoder().decode(message.subarray(lineEnd + 1));
  const split = text.indexOf("\r\n\r\n");
  const lfSplit = text.indexOf("\n\n");
  const headEnd = split >= 0 ? split : lfSplit;
  if (headEnd < 0 && text.replace(/\r?\n$/, "").length > 0 && !/\r?\n$/.test(text)) {
    return { kind: "error", status: MrcpStatus.UNSUPPORTED_ENTITY, requestId, reason: "No end of headers" };
  }
  const head = headEnd >= 0 ? text.slice(0, headEnd) : text;
  const body = headEnd >= 0 ? text.slice(headEnd + (split >= 0 ? 4 : 2)) : "";
  const headers = new Map<string, string>();
  const lines = head.split(/\r?\n/).filter((l) => l.length > 0);
  if (lines.length > MRCP_LIMITS.maxHeaders) {
    return { kind: "error", status: MrcpStatus.TOO_LARGE, requestId, reason: "Too many headers" };
  }
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (
      colon <= 0 ||
      line.length > MRCP_LIMITS.maxLineBytes ||
      !/^[A-Za-z0-9._-]+$/.test(line.slice(0, colon).trim())
    ) {
      return { kind: "error", status: MrcpStatus.UNSUPPORTED_ENTITY, requestId, reason: "Bad header line" };
    }
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const declared = headers.get("content-length");
  if (declared !== undefined) {
    if (!/^\d{1,7}$/.test(declared))
      return { kind: "error", status: MrcpStatus.ILLEGAL_VALUE, requestId, reason: "Bad Content-Length" };
    const bytes = new TextEncoder().encode(body);
    if (Number(declared) > bytes.length) {
      return {
        kind: "error",
        status: MrcpStatus.UNSUPPORTED_ENTITY,
        requestId,
        reason: "Body shorter than Content-Length",
      };
    }
    return {
      kind: "request",
      request: { method, requestId, headers, body: new TextDecoder().decode(bytes.subarray(0, Number(declared))) },
    };
  }
  return { kind: "request", request: { method, requestId, headers, body: "" } };
}

/** Serializes a response or an event; the length in the start line counts itself (§5.1). */
export function serializeMrcp(
  start:
    | { response: { requestId: number; status: number; state: RequestState } }
    | { event: { name: string; requestId: number; state: RequestState } },
  headers: readonly (readonly [string, string])[],
  body = "",
): Uint8Array {
  const bodyBytes = new TextEncoder().encode(body);
  const lines = headers.map(([name, value]) => `${name}: ${value}\r\n`);
  if (bodyBytes.length > 0) lines.push(`Content-Length: ${bodyBytes.length}\r\n`);
  const rest = `${lines.join("")}\r\n`;
  const tail = (length: number) =>
    "response" in start
      ? `MRCP/2.0 ${length} ${start.response.requestId} ${start.response.status} ${start.response.state}\r\n`
      : `MRCP/2.0 ${length} ${start.event.name} ${start.event.requestId} ${start.event.state}\r\n`;
  const fixed = new TextEncoder().encode(rest).length + bodyBytes.length;
  // The length's own digits are part of the length: iterate until it is stable.
  let length = fixed + tail(0).length;
  while (fixed + tail(length).length !== length) length = fixed + tail(length).length;
  const out = new TextEncoder().encode(tail(length) + rest);
  const all = new Uint8Array(out.length + bodyBytes.length);
  all.set(out);
  all.set(bodyBytes, out.length);
  return all;
}
