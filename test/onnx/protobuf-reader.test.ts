import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ProtoFormatError,
  ProtoReader,
  bytesSource,
  fileSource,
  type ByteSource,
} from "../../src/onnx/protobuf-reader.ts";
import { ProtoWriter } from "../../src/onnx/protobuf-writer.ts";

const dir = mkdtempSync(join(tmpdir(), "sawt-proto-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const reader = (bytes: number[] | Uint8Array): ProtoReader => new ProtoReader(bytesSource(Uint8Array.from(bytes)));
const readAll = (bytes: number[] | Uint8Array) => [...reader(bytes).fields()];

describe("ProtoReader", () => {
  test("reads varint, fixed and length-delimited fields when written by ProtoWriter", () => {
    const bytes = new ProtoWriter()
      .varint(1, 2 ** 40)
      .varint(2, -5)
      .float(3, 1.5)
      .double(4, 2.5)
      .string(5, "سلام")
      .message(6, (m) => m.varint(1, 7))
      .finish();
    const r = reader(bytes);
    const fields = [...r.fields()];
    expect(fields.map((f) => [f.field, f.wireType])).toEqual([
      [1, 0],
      [2, 0],
      [3, 5],
      [4, 1],
      [5, 2],
      [6, 2],
    ]);
    const [big, negative, , , text, nested] = fields;
    if (!big || !negative || !text || !nested) throw new Error("fields missing");
    expect(r.int(big)).toBe(2 ** 40);
    expect(r.int(negative)).toBe(-5);
    expect(r.string(text)).toBe("سلام");
    expect([...r.nested(nested).fields()].map((f) => f.varint)).toEqual([7]);
  });

  test("throws ProtoFormatError when a varint is truncated", () => {
    expect(() => readAll([0x08, 0x96])).toThrow(/truncated varint/);
  });

  test("throws when a varint runs past ten bytes", () => {
    expect(() => readAll([0x08, ...Array(10).fill(0xff), 0x01])).toThrow(/varint/);
  });

  test("throws when a length prefix runs past the end of its message", () => {
    expect(() => readAll([0x12, 0x05, 0x61])).toThrow(/runs past the end/);
    // A nested message may not borrow bytes from its parent's following fields either.
    const outer = reader([0x0a, 0x02, 0x12, 0x05, 0x08, 0x01, 0x08, 0x01]);
    const first = [...outer.fields()][0];
    if (!first) throw new Error("no field");
    expect(() => [...outer.nested(first).fields()]).toThrow(/runs past the end/);
  });

  test("throws when a field uses a group or reserved wire type", () => {
    expect(() => readAll([0x0b])).toThrow(/wire type 3/);
    expect(() => readAll([0x0e])).toThrow(/wire type 6/);
  });

  test("throws when the field number is 0", () => {
    expect(() => readAll([0x00, 0x00])).toThrow(/field number 0/);
  });

  test("throws when a fixed-width field is truncated", () => {
    expect(() => readAll([0x0d, 0x00, 0x00])).toThrow(/truncated fixed32/);
    expect(() => readAll([0x09, 0x00])).toThrow(/truncated fixed64/);
  });

  test("throws when a string is not valid UTF-8", () => {
    const r = reader([0x0a, 0x02, 0xc3, 0x28]);
    const f = [...r.fields()][0];
    if (!f) throw new Error("no field");
    expect(() => r.string(f)).toThrow(/UTF-8/);
  });

  test("throws when a field is read as the wrong wire type", () => {
    const r = reader([0x08, 0x01]);
    const f = [...r.fields()][0];
    if (!f) throw new Error("no field");
    expect(() => r.string(f)).toThrow(ProtoFormatError);
  });

  test("reports the byte offset when input is malformed", () => {
    try {
      readAll([0x08, 0x01, 0x0b]);
      throw new Error("did not throw");
    } catch (err) {
      expect(err).toBeInstanceOf(ProtoFormatError);
      expect((err as ProtoFormatError).offset).toBe(2);
    }
  });

  test("terminates with an error or a result when fed random bytes", () => {
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 300; round++) {
      const bytes = Uint8Array.from({ length: 1 + Math.floor(rand() * 64) }, () => Math.floor(rand() * 256));
      try {
        const r = reader(bytes);
        for (const f of r.fields()) if (f.wireType === 2) [...r.nested(f).fields()];
      } catch (err) {
        expect(err).toBeInstanceOf(ProtoFormatError);
      }
    }
  });
});

describe("fileSource", () => {
  test("reads fields on both sides of a payload larger than its window when walking a file", () => {
    const payload = new Uint8Array(200_000).fill(7);
    const bytes = new ProtoWriter().string(1, "before").bytes(2, payload).string(3, "after").finish();
    const path = join(dir, "big.bin");
    writeFileSync(path, bytes);
    const source = fileSource(path);
    try {
      const r = new ProtoReader(source);
      const fields = [...r.fields()];
      const [before, , after] = fields;
      if (!before || !after) throw new Error("fields missing");
      expect(r.string(before)).toBe("before");
      expect(r.string(after)).toBe("after");
      expect(source.read(fields[1]?.start ?? 0, payload.length)).toEqual(payload);
    } finally {
      source.close();
    }
  });

  test("reads only headers when skipping large payloads", () => {
    const bytes = new ProtoWriter().bytes(1, new Uint8Array(5_000_000)).string(2, "tail").finish();
    let bytesRead = 0;
    const inner = bytesSource(bytes);
    const counting: ByteSource = {
      size: inner.size,
      read: (offset, length) => {
        bytesRead += length;
        return inner.read(offset, length);
      },
    };
    const r = new ProtoReader(counting);
    const tail = [...r.fields()][1];
    if (!tail) throw new Error("no tail");
    expect(r.string(tail)).toBe("tail");
    expect(bytesRead).toBeLessThan(100);
  });
});
