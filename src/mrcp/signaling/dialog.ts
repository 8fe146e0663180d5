/**
 * The UAS side of a SIP dialog's routing (RFC 3261 §12): the route set and remote target a dialog
 * keeps (§12.1.1), and where a request the box sends inside it goes (§12.2.1.1). Behind a proxy
 * that record-routes, the box's own BYE must pass through that proxy; behind one that does not,
 * it goes straight to the IVR's Contact, not back to wherever the INVITE came from.
 */
import { addressUri } from "./message.ts";

/** Where a request goes on the wire. */
export interface NextHop {
  readonly address: string;
  readonly port: number;
}

/** A request's Request-URI, Route headers and next hop. */
export interface DialogRequestTarget {
  readonly uri: string;
  readonly route: readonly string[];
  /** Undefined when no URI could be parsed: the caller falls back to the INVITE's source. */
  readonly hop: NextHop | undefined;
}

const SIP_URI = /^(sips?):(?:[^@;?>]*@)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?(?=[;?]|$)/i;

/**
 * The host and port a SIP URI designates (`sip:ivr@10.0.0.5:5093;lr` → 10.0.0.5:5093), with the
 * scheme's default port (5060, 5061 for sips) when it has none; undefined for anything else.
 * A `maddr` parameter or DNS SRV (RFC 3263) is not followed: IVRs and proxies here give literal
 * addresses.
 */
export function uriHop(uri: string | undefined): NextHop | undefined {
  const match = SIP_URI.exec(uri?.trim() ?? "");
  if (!match) return undefined;
  const port = match[3] ? Number(match[3]) : match[1]!.toLowerCase() === "sips" ? 5061 : 5060;
  if (port < 1 || port > 65535) return undefined;
  return { address: match[2]!.replace(/^\[|\]$/g, ""), port };
}

/** Whether a route URI has the `lr` parameter (a loose router, RFC 3261 §16.12). */
function isLoose(route: string): boolean {
  const uri = addressUri(route) ?? "";
  return /;lr(?:[;=?]|$)/i.test(uri);
}

/** Strips a URI's parameters and headers, as §12.2.1.1 asks for a strict router's Request-URI. */
function bare(uri: string): string {
  return uri.replace(/[;?].*$/, "");
}

/**
 * Where a request inside the dialog goes (RFC 3261 §12.2.1.1). No route set: the Request-URI is
 * the remote target, sent there. A loose first route: the same Request-URI, the route set as
 * Route headers, sent to the first route. A strict first route (an RFC 2543 proxy): the first
 * route becomes the Request-URI, the rest plus the remote target the Route headers.
 */
export function dialogRequestTarget(routeSet: readonly string[], remoteTarget: string): DialogRequestTarget {
  const first = routeSet[0];
  if (first === undefined) return { uri: remoteTarget, route: [], hop: uriHop(remoteTarget) };
  const firstUri = addressUri(first) ?? first;
  if (isLoose(first)) return { uri: remoteTarget, route: [...routeSet], hop: uriHop(firstUri) };
  return {
    uri: bare(firstUri),
    route: [...routeSet.slice(1), `<${remoteTarget}>`],
    hop: uriHop(firstUri),
  };
}
