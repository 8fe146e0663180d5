/**
 * Who may bring calls (issue 41): `calls.allowed_networks` (any other source is closed at once)
 * and `calls.peers`, which maps a source network to the API key the call runs for, as
 * `mrcp.peers` does (src/edge/networks.ts). A chan_websocket call whose channel variables carry
 * `SAWT_KEY_ID` runs for that key id instead — an id, never a secret, in a dialplan.
 */
import type { AppContext } from "../core/context.ts";
import { type Cidr, inCidr, parseCidr, parsePeers, peerKeyId, type PeerRule } from "../edge/networks.ts";
import { AppError } from "../errors/taxonomy.ts";
import type { ApiKeyRecord } from "../store/keys.ts";

/** The channel variable naming a call's key id. */
export const KEY_ID_VARIABLE = "SAWT_KEY_ID";

/** The allowed networks and the peer map of one configuration. */
export class CallPeers {
  private readonly networks: readonly Cidr[];
  private readonly rules: readonly PeerRule[];

  constructor(private readonly ctx: AppContext) {
    const config = ctx.config.calls;
    this.networks = config.allowed_networks.map((n) => parseCidr(n)).filter((c): c is Cidr => c !== undefined);
    this.rules = parsePeers(config.peers);
  }

  /** Whether `address` may connect at all. */
  allowed(address: string): boolean {
    return this.networks.some((net) => inCidr(address, net));
  }

  /**
   * The key a call from `address` runs for: `keyId` (a channel variable) when given, else the
   * peer map's. 403 when neither names a live key.
   */
  keyFor(address: string, keyId?: string): ApiKeyRecord {
    const id = keyId?.trim() || peerKeyId(this.rules, address, undefined);
    const key = id ? this.ctx.keys.get(id) : undefined;
    if (!key || key.revokedAt !== null)
      throw new AppError(
        "forbidden",
        keyId ? `No API key ${KEY_ID_VARIABLE} names` : "No API key for this peer (calls.peers)",
      );
    return key;
  }
}
