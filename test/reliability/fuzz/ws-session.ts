/**
 * One scripted WebSocket session, bounded in time, for the door fuzz of the voice-bot sockets
 * (../doors/deepgram-*.ts, ../doors/elevenlabs.ts): a real Bun client sends its frames (text, binary,
 * pauses), then waits for the server to close (`wait`), closes itself (`close`), or drops the
 * connection without a close frame (`drop`). What it records is what the door's contract is
 * checked on: whether it opened, every text frame (parsed when JSON), the audio bytes, the close
 * code and reason, and whether the server let the session hang past its deadline.
 */

/** A step of a session: a frame to send, or a pause in milliseconds. */
export type Step = string | Uint8Array | { readonly pause: number };

/** A session to run. */
export interface SocketScript {
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly protocols?: readonly string[];
  readonly steps: readonly Step[];
  /** After the steps: wait for the server's close, close (1000), or drop the connection. */
  readonly end: "wait" | "close" | "drop";
  /** With `close` or `drop`: how long to listen after the last step first. */
  readonly lingerMs?: number;
  /** Bound of the whole session; past it the client drops the socket and `hung` is set. */
  readonly deadlineMs: number;
}

/** What a session saw. */
export interface SocketRecord {
  readonly opened: boolean;
  /** Text frames in order: the parsed JSON object, or the raw text when it was not one. */
  readonly texts: ReadonlyArray<Record<string, unknown> | string>;
  /** Raw text frames, for the leak check. */
  readonly raw: readonly string[];
  readonly binaryFrames: number;
  readonly binaryBytes: number;
  /** Binary frames that came after text frame `n` (index = texts.length at the time). */
  readonly binaryAfter: readonly number[];
  /** Steps sent before the socket closed. */
  readonly sent: number;
  /** The server closed (a close frame or the connection) before the client did. */
  readonly serverClosed: boolean;
  readonly code: number;
  readonly reason: string;
  /** The deadline passed with the session still open. */
  readonly hung: boolean;
}

/** Runs one session; never rejects, always settles by the deadline. */
export function runSocketScript(script: SocketScript): Promise<SocketRecord> {
  return new Promise((resolve) => {
    const ws = new WebSocket(script.url, {
      headers: script.headers ?? {},
      ...(script.protocols ? { protocols: [...script.protocols] } : {}),
    } as unknown as string[]);
    ws.binaryType = "arraybuffer";
    const texts: Array<Record<string, unknown> | string> = [];
    const raw: string[] = [];
    const binaryAfter: number[] = [];
    let opened = false;
    let sent = 0;
    let binaryBytes = 0;
    let clientEnded = false;
    let settled = false;
    const settle = (serverClosed: boolean, code: number, reason: string, hung = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({
        opened,
        texts,
        raw,
        binaryFrames: binaryAfter.length,
        binaryBytes,
        binaryAfter,
        sent,
        serverClosed,
        code,
        reason,
        hung,
      });
    };
    const drop = () => {
      const socket = ws as WebSocket & { terminate?: () => void };
      if (socket.terminate) socket.terminate();
      else ws.close();
    };
    const deadline = setTimeout(() => {
      drop();
      settle(false, 0, "", true);
    }, script.deadlineMs);
    ws.onopen = async () => {
      opened = true;
      for (const step of script.steps) {
        if (ws.readyState !== WebSocket.OPEN) return;
        if (typeof step === "object" && !(step instanceof Uint8Array)) await Bun.sleep(step.pause);
        else {
          ws.send(step);
          sent++;
        }
      }
      if (script.end === "wait") return;
      await Bun.sleep(script.lingerMs ?? 0);
      if (ws.readyState !== WebSocket.OPEN) return;
      clientEnded = true;
      if (script.end === "close") ws.close(1000);
      else drop();
      // The client's own end settles at its close event; a drop may not raise one.
      setTimeout(() => settle(false, 1000, ""), 1000);
    };
    ws.onmessage = (event) => {
      if (typeof event.data !== "string") {
        binaryAfter.push(texts.length);
        binaryBytes += (event.data as ArrayBuffer).byteLength;
        return;
      }
      raw.push(event.data);
      try {
        const parsed = JSON.parse(event.data) as unknown;
        texts.push(
          typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
            ? (parsed as Record<string, unknown>)
            : event.data,
        );
      } catch {
        texts.push(event.data);
      }
    };
    ws.onclose = (event) => settle(!clientEnded, event.code, event.reason);
  });
}

/** The query string of `params` (each value as given, so a huge or odd one goes as it is). */
export function queryOf(params: ReadonlyArray<readonly [string, string]>): string {
  const query = new URLSearchParams();
  for (const [name, value] of params) query.append(name, value);
  const text = query.toString();
  return text === "" ? "" : `?${text}`;
}

/** Open WebSocket connections of the box's doors named `doors` (`sawt_ws_connections{door}`). */
export function openSockets(metrics: Map<string, number>, doors: readonly string[]): number {
  return doors.reduce((sum, door) => sum + (metrics.get(`sawt_ws_connections{door="${door}"}`) ?? 0), 0);
}
