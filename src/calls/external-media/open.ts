/**
 * The externalMedia door (issue 41): an ARI application asks `POST /v1/calls` for a call
 * (`format` ulaw, alaw or slin16), Sawt holds an even UDP port of `calls.rtp_port_min..max` (in
 * the media kit's range, under the door name `external_media`, so the MRCP door's port gauge stays
 * its own) and answers `external_host` for the application's `externalMedia` request. There is no
 * SDP: Sawt latches onto the first RTP packet from an allowed network — its source address and
 * port are where Sawt's RTP goes, its payload type the call's (Asterisk picks a dynamic one for
 * slin16) — and drops packets from anywhere else. L16 travels big-endian (RFC 3551), G.711 as is;
 * RFC 4733 digits come on payload type 101, Asterisk's. The call opens at once, so the
 * application can watch it before the first packet; no packet for `calls.idle_timeout_s` ends it.
 */
import { randomUUID } from "node:crypto";
import type { TranscriptionLanguage } from "../../core/asr.ts";
import { advertisedAddress } from "../../edge/networks.ts";
import { AppError } from "../../errors/taxonomy.ts";
import { type AudioCodec, swap16 } from "../../media/codec.ts";
import { RtpEndpoint } from "../../media/endpoint.ts";
import type { ApiKeyRecord } from "../../store/keys.ts";
import { formatName, namedFormat } from "../format.ts";
import { callMetrics, EXTERNAL_MEDIA_PORTS } from "../metrics.ts";
import type { CallService, ExternalMediaCall, ExternalMediaRequest } from "../service.ts";

/** The formats externalMedia calls take, with their RTP codec (L16's payload type is learned). */
const CODECS: Readonly<Record<string, AudioCodec>> = {
  ulaw: { name: "PCMU", payloadType: 0, rate: 8000 },
  alaw: { name: "PCMA", payloadType: 8, rate: 8000 },
  slin16: { name: "L16", payloadType: 96, rate: 16000 },
};

/** The payload type of RFC 4733 telephone-events Asterisk sends. */
const TELEPHONE_EVENT = 101;

/** Opens an externalMedia call for `key`; see the file comment. Throws the AppError (400, 503). */
export async function openExternalMedia(
  calls: CallService,
  key: ApiKeyRecord,
  request: ExternalMediaRequest,
): Promise<ExternalMediaCall> {
  const { ctx } = calls;
  const name = request.format.trim().toLowerCase();
  const format = namedFormat(name);
  const wire = CODECS[name];
  if (!format || !wire) throw new AppError("bad_request", "format must be ulaw, alaw or slin16");
  const config = ctx.config.calls;
  let codec = wire;
  let endpoint: RtpEndpoint;
  try {
    endpoint = await RtpEndpoint.open(
      ctx.config.server.host,
      { min: config.rtp_port_min, max: config.rtp_port_max },
      () => ({ codec, telephoneEvent: TELEPHONE_EVENT }),
      EXTERNAL_MEDIA_PORTS,
    );
  } catch {
    throw new AppError("unavailable", "No free RTP port (calls.rtp_port_min..max)", { retryAfter: 5 });
  }
  const l16 = wire.name === "L16";
  const id = randomUUID();
  const refused = callMetrics(ctx).refused;
  endpoint.latch((address, payloadType) => {
    if (!calls.peers.allowed(address) || payloadType === TELEPHONE_EVENT) return false;
    codec = { ...wire, payloadType };
    return true;
  });
  let session: ReturnType<CallService["open"]>;
  try {
    session = calls.open(
      {
        id,
        door: "external_media",
        key,
        format,
        output: {
          format,
          leadMs: 0,
          send: (frame, marker) =>
            endpoint.send(l16 ? swap16(frame) : frame, l16 ? frame.length / 2 : frame.length, marker),
        },
        hangup: () => endpoint.close(),
        ...(request.voice !== undefined ? { voice: request.voice } : {}),
        ...(request.language !== undefined ? { language: request.language as TranscriptionLanguage } : {}),
      },
      `external-media-${id}`,
    );
  } catch (error) {
    endpoint.close();
    throw error;
  }
  endpoint.handlers = {
    audio: (payload) => session.audio(l16 ? swap16(payload) : payload),
    digit: (digit) => session.dtmf(digit),
    dropped: (reason) => refused.inc({ door: "external_media", reason: reason === "address" ? "network" : reason }),
  };
  const host = advertisedAddress(config.advertised_address, ctx.config.server.host);
  return {
    id,
    external_host: `${host.includes(":") ? `[${host}]` : host}:${endpoint.port}`,
    format: formatName(format),
  };
}
