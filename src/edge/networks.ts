/**
 * Who may talk to the MRCP door: `mrcp.allowed_networks` (CIDR list) and `mrcp.peers`, which maps
 * a network or a Request-URI user to the API key whose limits, lexicons and private voices the
 * peer's sessions use. IPv4 and IPv6 (IPv4-mapped IPv6 addresses count as IPv4).
 */
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";

/** A parsed CIDR block. */
export interface Cidr {
  readonly bytes: Uint8Array;
  readonly prefix: number;
}

function addressBytes(address: string): Uint8Array | undefined {
  const plain = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
  const kind = isIP(plain);
  if (kind === 4) return Uint8Array.from(plain.split(".").map(Number));
  if (kind !== 6) return undefined;
  const [head, tail] = plain.split("::") as [string, string | undefined];
  const groups = (s: string | undefined) => (s ? s.split(":") : []);
  const left = groups(head);
  const right = groups(tail);
  const parts = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  const out = new Uint8Array(16);
  parts.forEach((group, i) => {
    const value = Number.parseInt(group, 16);
    out[i * 2] = value >> 8;
    out[i * 2 + 1] = value & 0xff;
  });
  return out;
}

/** Parses `10.0.0.0/8`, `::1/128` or a bare address; undefined when it is neither. */
export function parseCidr(text: string): Cidr | undefined {
  const [address, prefixText] = text.trim().split("/") as [string, string | undefined];
  const bytes = addressBytes(address);
  if (!bytes) return undefined;
  const prefix = prefixText === undefined ? bytes.length * 8 : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bytes.length * 8) return undefined;
  return { bytes, prefix };
}

/** Whether `address` lies in `cidr`. */
export function inCidr(address: string, cidr: Cidr): boolean {
  const bytes = addressBytes(address);
  if (!bytes || bytes.length !== cidr.bytes.length) return false;
  for (let bit = 0; bit < cidr.prefix; bit++) {
    const mask = 0x80 >> (bit % 8);
    if ((bytes[bit >> 3]! & mask) !== (cidr.bytes[bit >> 3]! & mask)) return false;
  }
  return true;
}

/** One `mrcp.peers` entry: `<CIDR or address>=<key id>` or `<user>=<key id>`. */
export interface PeerRule {
  readonly network?: Cidr;
  readonly user?: string;
  readonly keyId: string;
}

/** Parses `mrcp.peers` (validated by the config loader's item pattern). */
export function parsePeers(items: readonly string[]): PeerRule[] {
  return items.map((item) => {
    const at = item.lastIndexOf("=");
    const left = item.slice(0, at).trim();
    const keyId = item.slice(at + 1).trim();
    const network = parseCidr(left);
    return network ? { network, keyId } : { user: left, keyId };
  });
}

/** The key id for a peer: a user rule first, then the longest matching network. */
export function peerKeyId(rules: readonly PeerRule[], address: string, user: string | undefined): string | undefined {
  const byUser = user === undefined ? undefined : rules.find((r) => r.user === user);
  if (byUser) return byUser.keyId;
  let best: PeerRule | undefined;
  for (const rule of rules) {
    if (rule.network && inCidr(address, rule.network) && (!best || rule.network.prefix > best.network!.prefix))
      best = rule;
  }
  return best?.keyId;
}

/**
 * The address the box puts in its SDP (`c=`, `o=`) and Contact: `mrcp.advertised_address` when
 * set, else `server.host` unless that is a wildcard, which no peer can reach; then the machine's
 * first non-internal IPv4 address, and 127.0.0.1 on a machine without one.
 */
export function advertisedAddress(configured: string, bindHost: string): string {
  if (configured.trim()) return configured.trim();
  if (bindHost !== "0.0.0.0" && bindHost !== "::") return bindHost;
  return firstExternalIpv4() ?? "127.0.0.1";
}

/** The first non-internal IPv4 address of `os.networkInterfaces()`, in its order. */
export function firstExternalIpv4(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  }
  return undefined;
}
