/**
 * Helpers of the reliability suite: a raw HTTP/1.1 exchange over TCP (for requests fetch will not
 * send: any Host header, half-broken WebSocket handshakes), and process readings from /proc
 * (resident memory, its peak, open file descriptors) of a server under test.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** A parsed raw HTTP response. */
export interface RawReply {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

/**
 * Sends `request` verbatim (a `Connection: close` is added) and parses the one response. Bodies
 * are read to the end of the connection; chunked encoding is not decoded (error bodies have a
 * Content-Length).
 */
export function rawHttp(port: number, request: string, timeoutMs = 10_000): Promise<RawReply> {
  const text = request.replace(/\r\n\r\n/, "\r\nConnection: close\r\n\r\n");
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    const timer = setTimeout(() => reject(new Error("raw HTTP request timed out")), timeoutMs);
    const done = () => {
      clearTimeout(timer);
      try {
        resolve(parseRaw(Buffer.concat(chunks).toString("utf8")));
      } catch (error) {
        reject(error);
      }
    };
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open: (socket) => void socket.write(text),
        data: (_socket, data) => void chunks.push(new Uint8Array(data)),
        close: done,
        error: done,
      },
    }).catch(reject);
  });
}

/**
 * A WebSocket upgrade of `path` sent over raw TCP with `headers` (the handshake's own are added):
 * resolves the refusal's whole reply, or a 101's head at once, dropping the connection right after
 * the handshake (a client gone without a close frame). Rejects after `timeoutMs`.
 */
export function rawUpgrade(
  port: number,
  path: string,
  headers: Readonly<Record<string, string>>,
  timeoutMs = 10_000,
): Promise<RawReply> {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  const head =
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
    `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n${lines.join("")}\r\n`;
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let settled = false;
    const settle = (socket?: { end(): void }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket?.end();
      try {
        resolve(parseRaw(Buffer.concat(chunks).toString("utf8")));
      } catch (error) {
        reject(error);
      }
    };
    const timer = setTimeout(() => {
      settled = true;
      reject(new Error(`the upgrade of ${path.slice(0, 60)} got no reply in ${timeoutMs} ms`));
    }, timeoutMs);
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open: (socket) => void socket.write(head),
        data(socket, data) {
          chunks.push(new Uint8Array(data));
          const text = Buffer.concat(chunks).toString("latin1");
          const end = text.indexOf("\r\n\r\n");
          if (end < 0) return;
          if (/^HTTP\/1\.1 101/.test(text)) return settle(socket);
          const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, end))?.[1] ?? Number.NaN);
          if (Buffer.byteLength(text.slice(end + 4), "latin1") >= length) settle(socket);
        },
        close: () => settle(),
        error: () => settle(),
      },
    }).catch((error) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        reject(error);
      }
    });
  });
}

function parseRaw(text: string): RawReply {
  const split = text.indexOf("\r\n\r\n");
  if (split < 0) throw new Error(`no HTTP response head in ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine, ...lines] = text.slice(0, split).split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1]);
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return { status, headers, body: text.slice(split + 4) };
}

/** Resident set (VmRSS) and its peak (VmHWM) of a process, in bytes. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

/** Open file descriptors of a process. */
export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Mebibytes, for messages. */
export const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;

/** The secret part of a `sawt_<id>_<secret>` key (the secret itself may contain `_`). */
export function keySecret(key: string): string {
  return key.slice("sawt_".length + 12 + 1);
}

/** What each descriptor of `pid` points at (socket:[…], pipe:[…] without their inode, or a path). */
export function fdLinks(pid: number): string[] {
  const links: string[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      links.push(readlinkSync(`/proc/${pid}/fd/${fd}`).replace(/\[\d+\]$/, ""));
    } catch {
      links.push("gone");
    }
  }
  return links.sort();
}

/** The links in `after` beyond those in `before` (as multisets): what a leak holds. */
export function addedLinks(after: readonly string[], before: readonly string[]): string[] {
  const left = [...before];
  return after.filter((link) => {
    const at = left.indexOf(link);
    if (at >= 0) left.splice(at, 1);
    return at < 0;
  });
}
