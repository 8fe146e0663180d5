/**
 * SDP (RFC 4566) as MRCPv2 uses it (RFC 6787 §4.2, RFC 3264 offer/answer): the offer's MRCP
 * control channels (`m=application 9 TCP/MRCPv2 1` with a=setup, a=connection, a=resource,
 * a=cmid) and its audio stream (`m=audio … RTP/AVP`), parsed strictly and bounded; the answer
 * built line by line. Codec choice: the offer's order, among PCMU, PCMA and L16 at 8 or 16 kHz.
 */
import { type AudioCodec, STATIC_CODECS } from "../../media/codec.ts";

/** Bounds on an offer. */
export const SDP_LIMITS = { maxLines: 128, maxMedia: 8, maxFormats: 32 } as const;

/** One m= section. */
export interface SdpMedia {
  readonly media: string;
  readonly port: number;
  readonly proto: string;
  readonly formats: readonly string[];
  /** `a=name:value` (value undefined for a flag such as `a=recvonly`). */
  readonly attributes: readonly (readonly [string, string | undefined])[];
  /** The section's c= address, else the session's. */
  readonly address: string | undefined;
}

/** A parsed offer. */
export interface SdpOffer {
  readonly media: readonly SdpMedia[];
}

/** An offer the server cannot read (answered 400 or 488). */
export class SdpError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SdpError";
  }
}

/** The first value of attribute `name` of a media section. */
export function attribute(media: SdpMedia, name: string): string | undefined {
  return media.attributes.find(([n]) => n === name)?.[1];
}

/** Parses an SDP body strictly (line types, field counts, ports); throws {@link SdpError}. */
export function parseSdp(body: string): SdpOffer {
  const lines = body.split(/\r?\n/).filter((line) => line.length > 0);
  if (lines.length > SDP_LIMITS.maxLines) throw new SdpError("SDP has too many lines");
  if (lines[0] !== "v=0") throw new SdpError("SDP must start with v=0");
  let sessionAddress: string | undefined;
  const media: {
    media: string;
    port: number;
    proto: string;
    formats: string[];
    attributes: [string, string | undefined][];
    address?: string;
  }[] = [];
  for (const line of lines) {
    if (!/^[a-z]=/.test(line)) throw new SdpError(`Bad SDP line ${JSON.stringify(line.slice(0, 40))}`);
    const type = line[0];
    const value = line.slice(2);
    const current = media.at(-1);
    if (type === "m") {
      const m = /^([a-z]+) (\d{1,5})(?:\/\d+)? (\S+)((?: \S+)+)$/.exec(value);
      if (!m || Number(m[2]) > 65535) throw new SdpError("Bad m= line");
      if (media.length >= SDP_LIMITS.maxMedia) throw new SdpError("SDP has too many media sections");
      const formats = m[4]!.trim().split(" ");
      if (formats.length > SDP_LIMITS.maxFormats) throw new SdpError("m= line has too many formats");
      media.push({ media: m[1]!, port: Number(m[2]), proto: m[3]!, formats, attributes: [] });
    } else if (type === "c") {
      const c = /^IN IP[46] (\S+)$/.exec(value);
      if (!c) throw new SdpError("Bad c= line");
      const address = c[1]!.split("/")[0];
      if (current) current.address = address;
      else sessionAddress = address;
    } else if (type === "a" && current) {
      const colon = value.indexOf(":");
      current.attributes.push(colon < 0 ? [value, undefined] : [value.slice(0, colon), value.slice(colon + 1)]);
    }
  }
  return { media: media.map((m) => ({ ...m, address: m.address ?? sessionAddress })) };
}

/** A negotiated audio codec. */
/** The audio stream negotiated from an offer's m=audio. */
export interface NegotiatedAudio {
  readonly codec: AudioCodec;
  /** telephone-event's payload type at the codec's rate, when offered. */
  readonly telephoneEvent: number | undefined;
  /** Where the peer receives RTP (port 0: it sends only). */
  readonly remote: { readonly address: string; readonly port: number };
  /** The peer's direction attribute (sendrecv when absent). */
  readonly direction: "sendrecv" | "sendonly" | "recvonly" | "inactive";
}

/** Picks the first codec of the offer Sawt speaks; undefined when none (answered 488). */
export function negotiateAudio(media: SdpMedia): NegotiatedAudio | undefined {
  const rtpmap = new Map<string, string>();
  for (const [name, value] of media.attributes) {
    const m = name === "rtpmap" && value ? /^(\d{1,3}) (\S+)$/.exec(value) : null;
    if (m) rtpmap.set(m[1]!, m[2]!.toLowerCase());
  }
  let codec: AudioCodec | undefined;
  for (const format of media.formats) {
    const map = rtpmap.get(format);
    const fixed = STATIC_CODECS[format];
    if (fixed && (!map || map.startsWith(fixed.name.toLowerCase()))) codec = fixed;
    else if (map === "l16/8000" || map === "l16/16000" || map === "l16/8000/1" || map === "l16/16000/1") {
      codec = { name: "L16", payloadType: Number(format), rate: map.startsWith("l16/16000") ? 16000 : 8000 };
    }
    if (codec) break;
  }
  if (!codec) return undefined;
  const te = [...rtpmap].find(([, map]) => map === `telephone-event/${codec.rate}`)?.[0];
  const direction = (["sendonly", "recvonly", "inactive"] as const).find((d) =>
    media.attributes.some(([n]) => n === d),
  );
  return {
    codec,
    telephoneEvent: te !== undefined && media.formats.includes(te) ? Number(te) : undefined,
    remote: { address: media.address ?? "0.0.0.0", port: media.port },
    direction: direction ?? "sendrecv",
  };
}

/** One answered m= section. */
export type AnswerMedia =
  | {
      readonly kind: "control";
      readonly port: number;
      readonly channel: string;
      readonly cmid: string | undefined;
      readonly connection: "new" | "existing";
    }
  | { readonly kind: "audio"; readonly port: number; readonly audio: NegotiatedAudio; readonly mid: string | undefined }
  | { readonly kind: "rejected"; readonly offered: SdpMedia };

const OPPOSITE = { sendrecv: "sendrecv", sendonly: "recvonly", recvonly: "sendonly", inactive: "inactive" } as const;

/** Builds the answer: one section per offered section, in order (RFC 3264 §6). */
export function buildAnswer(
  host: string,
  sessionId: string,
  version: number,
  sections: readonly AnswerMedia[],
): string {
  const ip = host.includes(":") ? "IP6" : "IP4";
  // sess-id is numeric (RFC 4566 §5.2): the session id's hex read as a number.
  const numeric = BigInt(`0x${sessionId.replace(/[^0-9a-f]/gi, "") || "0"}`).toString();
  const lines = ["v=0", `o=Sawt ${numeric} ${version} IN ${ip} ${host}`, "s=-", `c=IN ${ip} ${host}`, "t=0 0"];
  for (const section of sections) {
    if (section.kind === "control") {
      lines.push(`m=application ${section.port} TCP/MRCPv2 1`, "a=setup:passive", `a=connection:${section.connection}`);
      lines.push(`a=channel:${section.channel}`);
      if (section.cmid !== undefined) lines.push(`a=cmid:${section.cmid}`);
    } else if (section.kind === "audio") {
      const { codec, telephoneEvent, direction } = section.audio;
      const formats = telephoneEvent === undefined ? `${codec.payloadType}` : `${codec.payloadType} ${telephoneEvent}`;
      lines.push(
        `m=audio ${section.port} RTP/AVP ${formats}`,
        `a=rtpmap:${codec.payloadType} ${codec.name}/${codec.rate}`,
      );
      if (telephoneEvent !== undefined) {
        lines.push(`a=rtpmap:${telephoneEvent} telephone-event/${codec.rate}`, `a=fmtp:${telephoneEvent} 0-15`);
      }
      lines.push(`a=${OPPOSITE[direction]}`, "a=ptime:20");
      if (section.mid !== undefined) lines.push(`a=mid:${section.mid}`);
    } else {
      const { media, proto, formats } = section.offered;
      lines.push(`m=${media} 0 ${proto} ${formats.join(" ")}`);
    }
  }
  return `${lines.join("\r\n")}\r\n`;
}
