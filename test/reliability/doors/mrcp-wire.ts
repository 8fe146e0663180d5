/**
 * MRCPv2 as the fuzzer reads and writes it: a control connection that frames the box's messages
 * by their start-line length (and notices a length that lies), a request writer that can lie
 * about lengths on purpose, and the contract of every message the box sends (docs/mrcp.md):
 * a response with a status of the kit's set and a state, or an event of the resource with a
 * request id the client used and a Completion-Cause of the resource's set.
 */
import { connect, type Socket } from "node:net";

/** Response statuses the door answers with (RFC 6787 §5.4; 501 is a server error, not in it). */
export const MRCP_STATUSES: ReadonlySet<number> = new Set([
  200, 201, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 502, 504,
]);

/** Completion causes of the two resources' events and failed requests. */
export const CAUSES: ReadonlySet<string> = new Set([
  "000 normal",
  "001 barge-in",
  "002 parse-failure",
  "004 error",
  "007 cancelled",
  "000 success",
  "001 no-match",
  "002 no-input-timeout",
  "004 grammar-load-failure",
  "005 grammar-compilation-failure",
  "006 recognizer-error",
  "008 success-maxtime",
  "015 no-match-maxtime",
]);

const EVENTS = new Set([
  "SPEAK-COMPLETE",
  "SPEECH-MARKER",
  "START-OF-INPUT",
  "RECOGNITION-COMPLETE",
  "INTERPRETATION-COMPLETE",
]);

/** One message from the box. */
export interface MrcpIn {
  readonly kind: "response" | "event";
  readonly requestId: number;
  readonly status: number;
  readonly name: string;
  readonly state: string;
  readonly text: string;
  header(name: string): string | undefined;
}

/**
 * Writes a request (with a Content-Length for a body, unless `headers` carry one, true or not);
 * `length` makes the start line lie (a number, or an offset from the true length).
 */
export function request(
  method: string,
  requestId: number | string,
  given: readonly (readonly [string, string])[],
  body = "",
  length?: { exact?: number; off?: number },
): Buffer {
  const hasLength = given.some(([k]) => k.toLowerCase() === "content-length");
  const headers = body && !hasLength ? [...given, ["Content-Length", String(Buffer.byteLength(body))] as const] : given;
  const rest = `${headers.map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n${body}`;
  let total = 0;
  for (let i = 0; i < 3; i++) total = Buffer.byteLength(`MRCP/2.0 ${total} ${method} ${requestId}\r\n${rest}`);
  const declared = length?.exact ?? total + (length?.off ?? 0);
  return Buffer.from(`MRCP/2.0 ${declared} ${method} ${requestId}\r\n${rest}`);
}

/** A control connection to the box's MRCP port. */
export class MrcpLink {
  private buffer = Buffer.alloc(0);
  readonly messages: MrcpIn[] = [];
  /** Framing problems in what the box sent (a length that does not match, an unreadable line). */
  readonly framing: string[] = [];
  closed = false;

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => this.read(chunk));
    socket.on("close", () => (this.closed = true));
    socket.on("error", () => {});
  }

  static async open(port: number): Promise<MrcpLink> {
    const socket = connect(port, "127.0.0.1");
    await new Promise<void>((resolve) => {
      socket.once("connect", () => resolve());
      socket.once("close", () => resolve());
    });
    return new MrcpLink(socket);
  }

  send(bytes: Uint8Array): void {
    if (!this.closed) this.socket.write(bytes);
  }

  /** Waits until a message matching `accept` arrived (taking it out), or `ms` passed. */
  async take(accept: (m: MrcpIn) => boolean, ms: number): Promise<MrcpIn | undefined> {
    const deadline = performance.now() + ms;
    for (;;) {
      const at = this.messages.findIndex(accept);
      if (at >= 0) return this.messages.splice(at, 1)[0];
      if (performance.now() >= deadline || this.closed) return undefined;
      await Bun.sleep(2);
    }
  }

  close(): void {
    this.socket.destroy();
  }

  private read(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const lineEnd = this.buffer.indexOf("\r\n");
      if (lineEnd < 0) return;
      const line = this.buffer.subarray(0, lineEnd).toString("utf8");
      const m = /^MRCP\/2\.0 (\d+) /.exec(line);
      if (!m) {
        this.framing.push(`unreadable start line ${JSON.stringify(line.slice(0, 60))}`);
        this.buffer = Buffer.alloc(0);
        return;
      }
      const length = Number(m[1]);
      if (this.buffer.length < length) return;
      const text = this.buffer.subarray(0, length).toString("utf8");
      this.buffer = this.buffer.subarray(length);
      const parsed = parseIn(text);
      if (!parsed) this.framing.push(`unreadable message ${JSON.stringify(text.slice(0, 80))}`);
      else this.messages.push(parsed);
    }
  }
}

function parseIn(text: string): MrcpIn | undefined {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const head = text.slice(0, end);
  const body = text.slice(end + 4);
  const declared = /^Content-Length:[ \t]*(\d+)/im.exec(head)?.[1];
  if (Buffer.byteLength(body) !== Number(declared ?? 0)) return undefined;
  const header = (name: string) => new RegExp(`^${name}:[ \\t]*(.*)$`, "im").exec(head)?.[1]?.trim();
  const response = /^MRCP\/2\.0 \d+ (\d{1,10}) (\d{3}) (PENDING|IN-PROGRESS|COMPLETE)\r\n/.exec(text);
  if (response)
    return {
      kind: "response",
      requestId: Number(response[1]),
      status: Number(response[2]),
      name: "",
      state: response[3]!,
      text,
      header,
    };
  const event = /^MRCP\/2\.0 \d+ ([A-Z-]+) (\d{1,10}) (IN-PROGRESS|COMPLETE)\r\n/.exec(text);
  if (event)
    return { kind: "event", requestId: Number(event[2]), status: 0, name: event[1]!, state: event[3]!, text, header };
  return undefined;
}

/** Problems of one message from the box, given the request ids sent on its channels. */
export function messageProblems(m: MrcpIn, sent: ReadonlySet<number>): string[] {
  const problems: string[] = [];
  if (m.kind === "response" && !MRCP_STATUSES.has(m.status)) problems.push(`status ${m.status}`);
  if (m.kind === "event" && !EVENTS.has(m.name)) problems.push(`event ${m.name}`);
  if (m.kind === "event" && !sent.has(m.requestId)) problems.push(`${m.name} for request ${m.requestId}, never sent`);
  const cause = m.header("Completion-Cause");
  if (cause !== undefined && !CAUSES.has(cause)) problems.push(`Completion-Cause ${cause}`);
  if (m.name.endsWith("-COMPLETE") && cause === undefined) problems.push(`${m.name} without Completion-Cause`);
  return problems;
}
