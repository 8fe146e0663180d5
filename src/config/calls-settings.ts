/**
 * The `calls` section (issue 41): Asterisk calls on three media doors (AudioSocket, chan_websocket,
 * ARI externalMedia) and the call API. Declared apart from ./settings.ts only to keep each file
 * to one screenful of sections; the table there includes it as `calls`.
 */
import { flag, int, list, port, text } from "./setting.ts";

const DOCS = { see: { title: "Asterisk", href: "docs/asterisk.md" } } as const;

/** The `calls.*` settings, in documentation order. */
export const CALL_SETTINGS = {
  enabled: flag(
    false,
    "Serve Asterisk calls: the AudioSocket port, chan_websocket at WebSocket /v1/calls/asterisk, externalMedia RTP and the call API (/v1/calls). Off by default: the door opens a TCP port and UDP ports, and needs `calls.peers` to map Asterisk boxes to API keys.",
    DOCS,
  ),
  audiosocket_port: port(
    9093,
    "TCP port of the AudioSocket door (bound to server.host); 0 picks a free port, printed as `audiosocket` in the listening line.",
  ),
  allowed_networks: {
    ...list(
      /^[0-9a-fA-F.:]+(?:\/\d{1,3})?$/,
      "an address or CIDR block, e.g. 10.0.0.0/8",
      "Networks whose AudioSocket connections, chan_websocket sockets and externalMedia RTP are served; anything else is closed at once (loopback only by default).",
    ),
    default: ["127.0.0.0/8", "::1/128"] as string[],
  },
  peers: list(
    /^[0-9a-fA-F.:]+(?:\/\d{1,3})?=[a-z2-7]{12}$/,
    "<network>=<API key id>, e.g. 10.1.2.0/24=abcdefghijkl",
    "Which API key a call from Asterisk runs for (rate limit, phrases, lexicon, who may watch it), by source network (longest prefix wins), as mrcp.peers. A chan_websocket call whose channel variables carry `SAWT_KEY_ID` uses that key id instead. A call matching neither is refused.",
    DOCS,
  ),
  max_calls: int(
    100,
    1,
    100000,
    "Calls open at once over every call door; more are refused (AudioSocket: the connection closes; chan_websocket: closed with 1013; externalMedia: 503).",
  ),
  max_call_s: int(
    3600,
    1,
    86400,
    "Longest call; it is then ended (`call.ended` reason `max_call_s`) and everything it held freed.",
  ),
  idle_timeout_s: int(
    10,
    1,
    3600,
    "A call whose peer sent no media this long is ended (reason `idle`): a call that vanished without a hangup frees its session, slot and port.",
  ),
  max_connections: int(
    0,
    0,
    1000000,
    "Connections open at once on the AudioSocket port and, apart, chan_websocket sockets; more are closed at once and counted. 0: twice calls.max_calls, at least 32.",
  ),
  identify_timeout_s: int(
    5,
    1,
    3600,
    "An AudioSocket connection that has not sent its UUID frame, or a chan_websocket socket its MEDIA_START, this long after it opened is closed.",
  ),
  rtp_port_min: port(21000, "Lowest UDP port for externalMedia RTP (one even port per call)."),
  rtp_port_max: port(21999, "Highest UDP port for externalMedia RTP; the range bounds externalMedia calls too."),
  advertised_address: text(
    "",
    "Address `POST /v1/calls` puts in `external_host`, where Asterisk sends externalMedia RTP. Empty: server.host, or when that is 0.0.0.0 or ::, the machine's first non-internal IPv4 address.",
  ),
  retention_days: int(
    30,
    1,
    3650,
    "Days a call's stored transcript (both sides) stays retrievable at GET /v1/calls/{id}/transcript; older ones are deleted.",
  ),
  webhook_url: text(
    "",
    "Where the end-of-call webhook (`call.ended`, with the transcript) is POSTed, signed as job webhooks are (jobs.webhook_secret); its host must be in calls.webhook_hosts. Empty: none is sent.",
    DOCS,
  ),
  webhook_hosts: list(
    /^[^\s/]+$/,
    "a host or host:port, e.g. crm.internal:8443",
    "Hosts calls.webhook_url may name; empty refuses every URL, so nothing leaves the box.",
  ),
} as const;
