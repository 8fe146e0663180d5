/**
 * The RTP port range: one even port per audio stream, handed out at random within the range so a
 * port just freed is not reused at once (a late packet of the last call never reaches the next).
 * Each port is held in the name of the door that took it, so each door can report its own (the
 * MRCP door's `sawt_mrcp_rtp_ports`).
 */
import { createSocket, type Socket } from "node:dgram";
import { randomInt } from "node:crypto";

/** Ports held, and the door holding each: two streams never share one (the OS bind would tell, but later). */
const held = new Map<number, string>();

/** The RTP ports held now, by every door or by one (tests, metrics). */
export function rtpPortsInUse(door?: string): number {
  if (door === undefined) return held.size;
  let count = 0;
  for (const owner of held.values()) if (owner === door) count++;
  return count;
}

/** A bound UDP socket on a port of the range, and how to give the port back. */
export interface HeldPort {
  readonly socket: Socket;
  readonly port: number;
  release(): void;
}

/** Binds an even port in [min, max] on `host` for `door`; throws when the range is exhausted. */
export async function bindRtpPort(host: string, range: { min: number; max: number }, door: string): Promise<HeldPort> {
  const first = range.min + (range.min % 2);
  const slots = Math.floor((range.max - first) / 2) + 1;
  const offset = randomInt(0, Math.max(1, slots));
  for (let i = 0; i < slots; i++) {
    const port = first + ((offset + i) % slots) * 2;
    if (held.has(port)) continue;
    held.set(port, door);
    const socket = createSocket({ type: host.includes(":") ? "udp6" : "udp4" });
    const bound = await new Promise<boolean>((resolve) => {
      socket.once("error", () => resolve(false));
      socket.bind(port, host, () => resolve(true));
    });
    if (bound) {
      let released = false;
      return {
        socket,
        port,
        release() {
          if (released) return;
          released = true;
          held.delete(port);
          try {
            socket.close();
          } catch {
            // already closed
          }
        },
      };
    }
    held.delete(port);
    socket.close();
  }
  throw new Error(`No free RTP port in ${range.min}..${range.max}`);
}
