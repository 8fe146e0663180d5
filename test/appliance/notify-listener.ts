/**
 * A unix datagram socket that plays systemd's side of $NOTIFY_SOCKET in tests. Bun has no
 * unix-datagram API, so it binds and reads through libc with bun:ffi (non-blocking, polled).
 */
import { dlopen, FFIType } from "bun:ffi";
import { sockaddrUn } from "../../src/serving/sd-notify.ts";
import { until } from "../support/sawt.ts";

const libc = dlopen("libc.so.6", {
  socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
  bind: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
  recv: { args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i64 },
  close: { args: [FFIType.i32], returns: FFIType.i32 },
});

/** A bound listener collecting every datagram as text. */
export interface NotifyListener {
  readonly path: string;
  readonly messages: string[];
  /** Resolves with the first message (seen or future) matching `test`; rejects after `timeoutMs`. */
  waitFor(test: (message: string) => boolean, timeoutMs?: number): Promise<string>;
  close(): void;
}

/** Binds a datagram socket at `path` (a filesystem path, or "@name" for an abstract one). */
export function listenNotifySocket(path: string): NotifyListener {
  const fd = libc.symbols.socket(
    1 /* AF_UNIX */,
    2 /* SOCK_DGRAM */ | 0o4000 /* NONBLOCK */ | 0o2000000 /* CLOEXEC */,
    0,
  );
  if (fd < 0) throw new Error("socket() failed");
  const address = sockaddrUn(path);
  if (libc.symbols.bind(fd, address.bytes, address.length) !== 0) {
    libc.symbols.close(fd);
    throw new Error(`bind(${path}) failed`);
  }
  const messages: string[] = [];
  const buffer = new Uint8Array(4096);
  const drain = () => {
    for (;;) {
      const n = Number(libc.symbols.recv(fd, buffer, buffer.length, 0x40 /* MSG_DONTWAIT */));
      if (n < 0) return;
      messages.push(new TextDecoder().decode(buffer.subarray(0, n)));
    }
  };
  const timer = setInterval(drain, 10);
  let closed = false;
  return {
    path,
    messages,
    async waitFor(test, timeoutMs = 30_000) {
      const found = () => (drain(), messages.find(test));
      const what = () => `a matching notification; got ${JSON.stringify(messages)}`;
      return until(found, what, { timeoutMs, everyMs: 20 });
    },
    close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      libc.symbols.close(fd);
    },
  };
}
