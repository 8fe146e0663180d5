import { describe, expect, test } from "bun:test";
import { ProtoReader, bytesSource } from "./protobuf-reader.ts";
import { ProtoWriter } from "./protobuf-writer.ts";

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");
const varintHex = (v: number | bigint): string => hex(new ProtoWriter().rawVarint(v).finish());

describe("ProtoWriter", () => {
  test("encodes varints in 7-bit groups when values cross byte boundaries", () => {
    expect(varintHex(0)).toBe("00");
    expect(varintHex(127)).toBe("7f");
    expect(varintHex(128)).toBe("8001");
    expect(varintHex(300)).toBe("ac02");
    expect(varintHex(2 ** 32)).toBe("8080808010");
    expect(varintHex(Number.MAX_SAFE_INTEGER)).toBe("ffffffffffffff0f");
    expect(varintHex(2n ** 63n)).toBe("80808080808080808001");
  });

  test("writes ten-byte two's complement when a varint is negative", () => {
    expect(varintHex(-1)).toBe("ffffffffffffffffff01");
    expect(varintHex(-2n)).toBe("feffffffffffffffff01");
  });

  test("rejects a number beyond 2^53 when it would lose precision", () => {
    expect(() => new ProtoWriter().rawVarint(2 ** 60)).toThrow(/bigint/);
  });

  test("matches the protobuf encoding guide when writing its examples", () => {
    expect(hex(new ProtoWriter().varint(1, 150).finish())).toBe("089601");
    expect(hex(new ProtoWriter().string(2, "testing").finish())).toBe("120774657374696e67");
    expect(hex(new ProtoWriter().packedVarints(4, [3, 270, 86942]).finish())).toBe("2206038e029ea705");
    expect(hex(new ProtoWriter().message(3, (m) => m.varint(1, 150)).finish())).toBe("1a03089601");
  });

  test("writes fixed-width fields little-endian when given 32- and 64-bit values", () => {
    expect(hex(new ProtoWriter().fixed32(1, 0x01020304).finish())).toBe("0d04030201");
    expect(hex(new ProtoWriter().float(1, 1).finish())).toBe("0d0000803f");
    expect(hex(new ProtoWriter().fixed64(1, 1n).finish())).toBe("090100000000000000");
    expect(hex(new ProtoWriter().double(1, 1).finish())).toBe("09000000000000f03f");
    expect(hex(new ProtoWriter().packedFloats(2, [1, -2]).finish())).toBe("12080000803f000000c0");
    expect(hex(new ProtoWriter().packedFixed64(2, [1, 2n]).finish())).toBe("121001000000000000000200000000000000");
  });

  test("writes booleans as varints 0 and 1 when a field is a bool", () => {
    expect(hex(new ProtoWriter().varint(1, true).varint(2, false).finish())).toBe("08011000");
  });

  test("writes nothing when a packed field is empty", () => {
    const w = new ProtoWriter().packedVarints(1, []).packedFloats(2, []).packedFixed64(3, []);
    expect(w.length).toBe(0);
  });

  test("rejects the field number when it is outside 1..2^29-1", () => {
    expect(() => new ProtoWriter().varint(0, 1)).toThrow(RangeError);
    expect(() => new ProtoWriter().varint(2 ** 29, 1)).toThrow(RangeError);
  });

  test("grows its buffer when messages outgrow the initial capacity", () => {
    const payload = new Uint8Array(100_000).map((_, i) => i % 251);
    const bytes = new ProtoWriter().varint(1, 7).bytes(2, payload).varint(3, 9).finish();
    const r = new ProtoReader(bytesSource(bytes));
    const fields = [...r.fields()];
    expect(fields.map((f) => f.field)).toEqual([1, 2, 3]);
    const body = fields[1];
    if (body === undefined) throw new Error("missing field 2");
    expect(bytes.subarray(body.start, body.end)).toEqual(payload);
    expect(fields[2]?.varint).toBe(9);
  });
});
