/**
 * systemd service notifications (sd_notify(3)) for `Type=notify` units: READY=1 once the engines
 * have settled, STOPPING=1 when shutdown begins, WATCHDOG=1 while the process is well, STATUS=
 * lines for `systemctl status`.
 *
 * The message is a datagram on the unix socket named by $NOTIFY_SOCKET. Bun has no unix-datagram
 * API (node:dgram is UDP only), so we call libsystemd's own `sd_notify()` through bun:ffi, which
 * also handles abstract socket names and credentials exactly as systemd expects. Where
 * libsystemd.so.0 is missing (minimal containers) the same datagram is sent with libc's
 * socket()/sendto(). Without $NOTIFY_SOCKET (not started by systemd) everything is a no-op.
 */
import { dlopen, FFIType } from "bun:ffi";

/** Sends notifications to the service manager. */
export interface Notifier {
  /** True when $NOTIFY_SOCKET was set and a backend could be loaded. */
  readonly enabled: boolean;
  /** Which implementation sends: `libsystemd`, `libc`, or `none`. */
  readonly backend: "libsystemd" | "libc" | "none";
  /** Sends newline-separated `KEY=value` assignments; false when nothing was sent. */
  notify(state: string): boolean;
  /** Releases the loaded library (the process normally keeps it until exit). */
  close(): void;
}

/** Options for {@link createNotifier}. */
export interface NotifierOptions {
  readonly env?: Record<string, string | undefined>;
  /** `auto` (default) tries libsystemd, then libc. Tests force one to cover both. */
  readonly backend?: "auto" | "libsystemd" | "libc";
}

const disabled: Notifier = { enabled: false, backend: "none", notify: () => false, close: () => {} };

function cString(text: string): Uint8Array {
  return new TextEncoder().encode(`${text}\0`);
}

/** NOTIFY_SOCKET as the C library sees it (Bun's process.env edits do not reach the C environment). */
function processNotifySocket(): string | undefined {
  const libc = dlopen("libc.so.6", { getenv: { args: [FFIType.ptr], returns: FFIType.cstring } });
  try {
    const value = libc.symbols.getenv(cString("NOTIFY_SOCKET"));
    return value === null ? undefined : String(value);
  } finally {
    libc.close();
  }
}

function libsystemdNotifier(socketPath: string): Notifier {
  // sd_notify() reads the socket from the process environment; it can only serve that socket.
  if (processNotifySocket() !== socketPath)
    throw new Error("libsystemd can only notify the process's own NOTIFY_SOCKET");
  const lib = dlopen("libsystemd.so.0", { sd_notify: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } });
  return {
    enabled: true,
    backend: "libsystemd",
    // unset_environment = 0: the variables stay for the watchdog and for later messages.
    notify: (state) => lib.symbols.sd_notify(0, cString(state)) > 0,
    close: () => lib.close(),
  };
}

const AF_UNIX = 1;
const SOCK_DGRAM = 2;
const SOCK_CLOEXEC = 0o2000000;
const MSG_NOSIGNAL = 0x4000;
const SUN_PATH_MAX = 108;

/** Encodes a `struct sockaddr_un` for `path` ("@name" is an abstract address, as in systemd). */
export function sockaddrUn(path: string): { bytes: Uint8Array; length: number } {
  const name = new TextEncoder().encode(path);
  if (name.length === 0 || name.length >= SUN_PATH_MAX)
    throw new Error(`NOTIFY_SOCKET path length ${name.length} is not usable`);
  const bytes = new Uint8Array(2 + SUN_PATH_MAX);
  new DataView(bytes.buffer).setUint16(0, AF_UNIX, true);
  bytes.set(name, 2);
  const abstract = path.startsWith("@");
  if (abstract) bytes[2] = 0;
  // Abstract names are exactly their bytes; filesystem paths carry their terminating NUL.
  return { bytes, length: 2 + name.length + (abstract ? 0 : 1) };
}

function libcNotifier(socketPath: string): Notifier {
  const address = sockaddrUn(socketPath);
  const libc = dlopen("libc.so.6", {
    socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    sendto: {
      args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.ptr, FFIType.u32],
      returns: FFIType.i64,
    },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
  });
  return {
    enabled: true,
    backend: "libc",
    notify(state) {
      const fd = libc.symbols.socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      if (fd < 0) return false;
      try {
        const payload = new TextEncoder().encode(state);
        return (
          Number(libc.symbols.sendto(fd, payload, payload.length, MSG_NOSIGNAL, address.bytes, address.length)) ===
          payload.length
        );
      } finally {
        libc.symbols.close(fd);
      }
    },
    close: () => libc.close(),
  };
}

/** Creates the notifier for this process; a no-op one when $NOTIFY_SOCKET is unset. */
export function createNotifier(options: NotifierOptions = {}): Notifier {
  const env = options.env ?? process.env;
  const socketPath = env.NOTIFY_SOCKET;
  if (!socketPath) return disabled;
  const backend = options.backend ?? "auto";
  if (backend !== "libc") {
    try {
      return libsystemdNotifier(socketPath);
    } catch (error) {
      if (backend === "libsystemd") throw error;
    }
  }
  return libcNotifier(socketPath);
}

/**
 * The watchdog ping interval in ms: half of $WATCHDOG_USEC, as sd_watchdog_enabled(3) advises, or
 * undefined when systemd asked for no watchdog (or asked another process, per $WATCHDOG_PID).
 */
export function watchdogIntervalMs(
  env: Record<string, string | undefined> = process.env,
  pid = process.pid,
): number | undefined {
  const usec = Number(env.WATCHDOG_USEC);
  if (!Number.isFinite(usec) || usec <= 0) return undefined;
  if (env.WATCHDOG_PID && Number(env.WATCHDOG_PID) !== pid) return undefined;
  return Math.max(1, Math.floor(usec / 2000));
}

/**
 * Pings WATCHDOG=1 every `intervalMs` while `healthy()` says so. The pings ride on the event loop,
 * so a blocked loop stops them by itself; `healthy()` withholds them when the process runs but can
 * no longer serve, so systemd restarts it. Returns the stop function.
 */
export function startWatchdog(
  notifier: Notifier,
  intervalMs: number,
  healthy: () => { ok: true } | { ok: false; reason: string },
  onWithheld?: (reason: string) => void,
): () => void {
  let withheld: string | undefined;
  const ping = () => {
    const verdict = healthy();
    if (verdict.ok) {
      withheld = undefined;
      notifier.notify("WATCHDOG=1");
    } else if (withheld !== verdict.reason) {
      withheld = verdict.reason;
      onWithheld?.(verdict.reason);
    }
  };
  ping();
  const timer = setInterval(ping, intervalMs);
  // The watchdog must not keep a finished process alive.
  timer.unref();
  return () => clearInterval(timer);
}
