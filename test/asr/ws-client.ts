/**
 * A plain WebSocket test client (Bun's WebSocket, the same a browser or a bridge would use): it
 * records every server frame and the close, and waits for events by type.
 */
import { until } from "../support/sawt.ts";

/** A connected client. */
export interface TestSocket {
  readonly ws: WebSocket;
  /** Parsed JSON frames, in order of arrival. */
  readonly events: any[];
  /** Resolves with the close code and reason. */
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Arrival time (performance.now) of each event, same index as `events`. */
  readonly times: number[];
  /** Waits until an event of `type` has arrived (the `nth`, from 1), and returns it. */
  next(type: string, nth?: number): Promise<any>;
  sendJson(event: Record<string, unknown>): void;
}

/** Opens a WebSocket to `url` with optional headers and subprotocols; resolves once open (or closed). */
export async function connect(
  url: string,
  options: { headers?: Record<string, string>; protocols?: string[] } = {},
): Promise<TestSocket> {
  const ws = new WebSocket(url, { headers: options.headers, protocols: options.protocols } as any);
  ws.binaryType = "arraybuffer";
  const events: any[] = [];
  const times: number[] = [];
  let closedNow = false;
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.addEventListener("close", (e) => {
      closedNow = true;
      resolve({ code: e.code, reason: e.reason });
    }),
  );
  ws.addEventListener("message", (e) => {
    events.push(typeof e.data === "string" ? JSON.parse(e.data) : { binary: e.data });
    times.push(performance.now());
  });
  await new Promise<void>((resolve) => {
    ws.addEventListener("open", () => resolve());
    void closed.then(() => resolve());
  });
  return {
    ws,
    events,
    times,
    closed,
    async next(type, nth = 1) {
      const found = () => events.filter((e) => e.type === type)[nth - 1];
      await until(
        () =>
          found() ??
          (closedNow
            ? Promise.reject(new Error(`closed before ${type}: ${JSON.stringify(events.slice(-3))}`))
            : undefined),
        `event ${type}`,
      );
      return found();
    },
    sendJson: (event) => ws.send(JSON.stringify(event)),
  };
}

/**
 * Opens an OpenAI Realtime transcription session (`/v1/realtime?intent=transcription`) on the
 * server at `baseUrl` with `key`, waits for `session.created`, and when `session` is given sends
 * it as a `session.update` and waits for `session.updated`.
 */
export async function realtimeSession(
  baseUrl: string,
  key: string,
  session?: Record<string, unknown>,
): Promise<TestSocket> {
  const client = await connect(`${baseUrl.replace(/^http/, "ws")}/v1/realtime?intent=transcription`, {
    headers: { authorization: `Bearer ${key}` },
  });
  await client.next("session.created");
  if (session === undefined) return client;
  client.sendJson({ type: "session.update", session });
  await client.next("session.updated");
  return client;
}
