/**
 * RTP packets (RFC 3550 §5.1): the fixed header, CSRCs, the header extension and padding, read
 * strictly and written plainly (version 2, no CSRCs, no extension).
 */

/** One RTP packet's fields. */
export interface RtpPacket {
  readonly payloadType: number;
  readonly marker: boolean;
  readonly sequence: number;
  readonly timestamp: number;
  readonly ssrc: number;
  readonly payload: Uint8Array;
}

/** Parses an RTP packet (version 2, CSRCs and extension skipped, padding removed); undefined when it is not one. */
export function parseRtp(bytes: Uint8Array): RtpPacket | undefined {
  if (bytes.length < 12 || bytes[0]! >> 6 !== 2) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 12 + (bytes[0]! & 0x0f) * 4;
  if (bytes[0]! & 0x10) {
    if (bytes.length < offset + 4) return undefined;
    offset += 4 + view.getUint16(offset + 2) * 4;
  }
  let end = bytes.length;
  if (bytes[0]! & 0x20) end -= bytes[bytes.length - 1]!;
  if (offset > end) return undefined;
  return {
    payloadType: bytes[1]! & 0x7f,
    marker: (bytes[1]! & 0x80) !== 0,
    sequence: view.getUint16(2),
    timestamp: view.getUint32(4),
    ssrc: view.getUint32(8),
    payload: bytes.subarray(offset, end),
  };
}

/** Builds an RTP packet. */
export function buildRtp(fields: Omit<RtpPacket, "payload">, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + payload.length);
  const view = new DataView(out.buffer);
  out[0] = 0x80;
  out[1] = (fields.marker ? 0x80 : 0) | (fields.payloadType & 0x7f);
  view.setUint16(2, fields.sequence & 0xffff);
  view.setUint32(4, fields.timestamp >>> 0);
  view.setUint32(8, fields.ssrc >>> 0);
  out.set(payload, 12);
  return out;
}
