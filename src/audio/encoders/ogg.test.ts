import { describe, expect, test } from "bun:test";
import { OggStreamWriter, oggCrc32 } from "./ogg.ts";

describe("Ogg pages", () => {
  test("does compute the CRC of RFC 3533 when given the standard check string", () => {
    // CRC-32/CKSUM (same polynomial, init 0, unreflected) checks to 0x765E7680 with a final xor;
    // Ogg's CRC has none, so its value is the complement.
    expect(oggCrc32(new TextEncoder().encode("123456789"))).toBe(~0x765e7680 >>> 0);
  });

  test("does lace packets and mark the first and last pages when a stream is written", () => {
    const writer = new OggStreamWriter(0x1234);
    writer.add(new Uint8Array(19), 0n);
    const [first] = writer.flush();
    writer.add(new Uint8Array(255), 960n);
    writer.add(new Uint8Array(3), 1920n);
    const [last] = writer.flush(true);
    const view = (page: Uint8Array) => new DataView(page.buffer, page.byteOffset);
    expect(new TextDecoder().decode(first!.subarray(0, 4))).toBe("OggS");
    expect(first![5]).toBe(0x02);
    expect(last![5]).toBe(0x04);
    expect(view(last!).getBigInt64(6, true)).toBe(1920n);
    expect(view(last!).getUint32(18, true)).toBe(1);
    // 255 bytes need a 255 and a 0 lacing value; 3 bytes one value.
    expect(Array.from(last!.subarray(26, 30))).toEqual([3, 255, 0, 3]);
    // The stored CRC is the CRC of the page with its CRC field zeroed.
    const copy = last!.slice();
    copy.fill(0, 22, 26);
    expect(view(last!).getUint32(22, true)).toBe(oggCrc32(copy));
  });

  test("does start a new page when the lacing values would pass 255", () => {
    const writer = new OggStreamWriter(1);
    for (let i = 0; i < 300; i++) writer.add(new Uint8Array(10), BigInt(i));
    const pages = writer.flush(true);
    expect(pages.map((page) => page[26])).toEqual([255, 45]);
    expect(pages.map((page) => page[5])).toEqual([0x02, 0x04]);
  });
});
