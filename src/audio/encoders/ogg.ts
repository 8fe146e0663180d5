/**
 * An Ogg page writer for one logical stream (RFC 3533), enough for Ogg Opus (RFC 7845): packets
 * are laced into pages of at most 255 segments, each page carries the granule position of the
 * last packet completed on it, and a CRC-32 (polynomial 0x04C11DB7, unreflected, initial value
 * 0, no final xor) over the whole page with its CRC field zeroed.
 */

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 24;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
    table[byte] = crc >>> 0;
  }
  return table;
})();

/** The Ogg CRC-32 of `bytes`. */
export function oggCrc32(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ byte) & 0xff]!) >>> 0;
  return crc;
}

/** header_type_flag bits. */
const BEGINNING_OF_STREAM = 0x02;
const END_OF_STREAM = 0x04;
const HEADER_BYTES = 27;
const MAX_SEGMENTS = 255;

/** One packet waiting for its page, with the granule position it ends at. */
interface Pending {
  readonly data: Uint8Array;
  readonly granule: bigint;
}

/** Builds the pages of one logical bitstream; every call returns finished pages as bytes. */
export class OggStreamWriter {
  private sequence = 0;
  private pending: Pending[] = [];
  private started = false;
  private ended = false;

  constructor(private readonly serial: number) {}

  /** Queues a packet that ends at `granule`. */
  add(data: Uint8Array, granule: bigint): void {
    if (this.ended) throw new Error("the Ogg stream has ended");
    this.pending.push({ data, granule });
  }

  /** Writes every queued packet out, on as many pages as the lacing needs; `last` marks end of stream. */
  flush(last = false): Uint8Array[] {
    const pages: Uint8Array[] = [];
    while (this.pending.length > 0) {
      let segments = 0;
      let count = 0;
      // Packets are never split across pages here: each fits in one page (Opus packets ≤ 1275 bytes).
      for (const packet of this.pending) {
        const needs = Math.floor(packet.data.length / 255) + 1;
        if (count > 0 && segments + needs > MAX_SEGMENTS) break;
        segments += needs;
        count++;
      }
      const onPage = this.pending.splice(0, count);
      pages.push(this.page(onPage, last && this.pending.length === 0));
    }
    if (last) this.ended = true;
    return pages;
  }

  private page(packets: readonly Pending[], endOfStream: boolean): Uint8Array {
    const lacing: number[] = [];
    for (const { data } of packets) {
      for (let left = data.length; ; left -= 255) {
        lacing.push(Math.min(left, 255));
        if (left < 255) break;
      }
    }
    if (lacing.length > MAX_SEGMENTS) throw new RangeError("an Ogg packet too large for one page");
    const bodyLength = packets.reduce((sum, packet) => sum + packet.data.length, 0);
    const page = new Uint8Array(HEADER_BYTES + lacing.length + bodyLength);
    const view = new DataView(page.buffer);
    page.set([0x4f, 0x67, 0x67, 0x53]); // "OggS", version 0
    let flags = this.started ? 0 : BEGINNING_OF_STREAM;
    if (endOfStream) flags |= END_OF_STREAM;
    page[5] = flags;
    view.setBigInt64(6, packets[packets.length - 1]!.granule, true);
    view.setUint32(14, this.serial, true);
    view.setUint32(18, this.sequence++, true);
    page[26] = lacing.length;
    page.set(lacing, HEADER_BYTES);
    let at = HEADER_BYTES + lacing.length;
    for (const { data } of packets) {
      page.set(data, at);
      at += data.length;
    }
    view.setUint32(22, oggCrc32(page), true);
    this.started = true;
    return page;
  }
}
