/**
 * What the reliability suite reads from outside a server under test, from /proc only: the sockets
 * a process holds (its /proc/<pid>/fd socket inodes matched against /proc/<pid>/net/{tcp,tcp6,udp,
 * udp6}), with their addresses, states and the kernel's drop counts; its child processes; and a
 * socket watch that samples them while a campaign runs and keeps every remote address that is
 * neither loopback nor allowed (issue 39's air gap: no byte leaves the box except to hosts the
 * operator configured).
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** One socket of a process. */
export interface ProcSocket {
  readonly proto: "tcp" | "tcp6" | "udp" | "udp6";
  readonly local: string;
  readonly localPort: number;
  readonly remote: string;
  readonly remotePort: number;
  /** TCP state as /proc writes it (01 ESTABLISHED, 02 SYN_SENT, 0A LISTEN, 07 a UDP socket). */
  readonly state: string;
  /** Datagrams the kernel dropped (UDP only; 0 for TCP). */
  readonly drops: number;
}

/** The socket inodes a process holds. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** `0100007F:1F90` (or the 32-hex-digit IPv6 form) → address text and port. */
function hexAddress(text: string): { address: string; port: number } {
  const [hex, portHex] = text.split(":") as [string, string];
  const port = Number.parseInt(portHex, 16);
  if (hex.length === 8) {
    const bytes = [0, 2, 4, 6].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).reverse();
    return { address: bytes.join("."), port };
  }
  // IPv6: four 32-bit words, each in host (little-endian) byte order.
  const words: string[] = [];
  for (let w = 0; w < 4; w++) {
    const word = hex.slice(w * 8, w * 8 + 8);
    const bytes = [6, 4, 2, 0].map((i) => word.slice(i, i + 2));
    words.push(`${bytes[0]}${bytes[1]}`, `${bytes[2]}${bytes[3]}`);
  }
  const address = words.map((g) => g.replace(/^0{1,3}/, "").toLowerCase()).join(":");
  const mapped = /^0:0:0:0:0:ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(address);
  if (mapped) {
    const hi = Number.parseInt(mapped[1]!, 16);
    const lo = Number.parseInt(mapped[2]!, 16);
    return { address: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, port };
  }
  return { address, port };
}

/** Every socket `pid` holds, with its addresses. */
export function socketsOf(pid: number): ProcSocket[] {
  const inodes = socketInodes(pid);
  const found: ProcSocket[] = [];
  if (inodes.size === 0) return found;
  for (const proto of ["tcp", "tcp6", "udp", "udp6"] as const) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${proto}`, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || !inodes.has(f[9]!)) continue;
      const local = hexAddress(f[1]!);
      const remote = hexAddress(f[2]!);
      found.push({
        proto,
        local: local.address,
        localPort: local.port,
        remote: remote.address,
        remotePort: remote.port,
        state: f[3]!,
        drops: proto.startsWith("udp") ? Number(f[12] ?? 0) : 0,
      });
    }
  }
  return found;
}

/** UDP sockets of `pid` bound to a port in [min, max] (the RTP ports it holds). */
export function udpPortsIn(pid: number, range: { min: number; max: number }): ProcSocket[] {
  return socketsOf(pid).filter(
    (s) => s.proto.startsWith("udp") && s.localPort >= range.min && s.localPort <= range.max,
  );
}

/** Child processes of `pid` (the jobs worker). */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Field 4 is the parent pid; the command in field 2 may hold spaces, so count from its ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

const LOOPBACK = /^(127\.|0\.0\.0\.0$|::1$|0:0:0:0:0:0:0:1$|0:0:0:0:0:0:0:0$|::$)/;

/** True for an address that never leaves the box (loopback, or unset: a listening socket). */
export function isLocal(address: string): boolean {
  return LOOPBACK.test(address);
}

/** A socket to a remote host seen by the watch. */
export interface Egress {
  readonly pid: number;
  readonly socket: ProcSocket;
}

/**
 * Samples the sockets of `pids()` every `everyMs` until stopped; resolves what was seen that is
 * not local and not to one of `allowed` (addresses of configured webhook hosts). Sampling sees
 * connected sockets (TCP, connected UDP); a datagram sent from an unconnected UDP socket leaves
 * no remote address in /proc, which is why the MRCP door is also pinned by its own rule (an
 * offer's or a Contact's address outside mrcp.allowed_networks is never used).
 */
export function watchSockets(
  pids: () => readonly number[],
  allowed: readonly string[],
  everyMs = 50,
): { samples: () => number; stop(): Egress[] } {
  const seen = new Map<string, Egress>();
  let samples = 0;
  const sample = () => {
    samples++;
    for (const pid of pids()) {
      for (const socket of socketsOf(pid)) {
        if (isLocal(socket.remote) || allowed.includes(socket.remote)) continue;
        seen.set(`${pid} ${socket.proto} ${socket.remote}:${socket.remotePort}`, { pid, socket });
      }
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    samples: () => samples,
    stop() {
      clearInterval(timer);
      sample();
      return [...seen.values()];
    },
  };
}

/**
 * Descriptors `pid` holds, less its TCP connections whose other end is still open in this process
 * (`client`): keep-alive connections a test's own HTTP or gRPC client keeps are not the server's
 * leak, and Bun's server keeps an idle keep-alive connection as long as its client does.
 */
export function heldFds(pid: number, client = process.pid): number {
  const ours = new Set(
    socketsOf(client)
      .filter((s) => s.proto.startsWith("tcp"))
      .map((s) => s.localPort),
  );
  const live = socketsOf(pid).filter((s) => s.proto.startsWith("tcp") && s.state === "01" && ours.has(s.remotePort));
  let fds = 0;
  try {
    fds = readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
  return fds - live.length;
}
