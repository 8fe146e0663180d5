/**
 * A minimal protobuf wire-format writer, enough to serialise ONNX messages: the graph rewrite of
 * conv-lift.ts and the constructed test models. It knows wire types, not schemas: callers name
 * field numbers themselves.
 */

/** Protobuf wire types (encoding spec). */
export const WireType = {
  VARINT: 0,
  FIXED64: 1,
  LEN: 2,
  FIXED32: 5,
} as const;

const textEncoder = new TextEncoder();

/**
 * Appends protobuf fields to a growable buffer. Nested messages are written by a callback into a
 * child writer, so the length prefix is known before the bytes are copied in.
 */
export class ProtoWriter {
  private buf = new Uint8Array(256);
  private view = new DataView(this.buf.buffer);
  private len = 0;

  /** Bytes written so far. */
  get length(): number {
    return this.len;
  }

  /** A copy of the bytes written so far. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }

  /** Writes a field key (field number and wire type). */
  tag(field: number, wireType: number): this {
    if (!Number.isInteger(field) || field < 1 || field > 0x1fffffff) {
      throw new RangeError(`invalid protobuf field number ${field}`);
    }
    return this.rawVarint(field * 8 + wireType);
  }

  /**
   * Writes an unsigned varint with no key. Negative values are written as their 64-bit two's
   * complement (10 bytes), which is how int32/int64 fields carry them.
   */
  rawVarint(value: number | bigint): this {
    if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) {
      // Fast path: division instead of bit operators, which would truncate to 32 bits.
      let v = value;
      while (v >= 0x80) {
        this.byte((v % 0x80) | 0x80);
        v = Math.floor(v / 0x80);
      }
      return this.byte(v);
    }
    if (typeof value === "number" && !Number.isSafeInteger(value)) {
      throw new RangeError(`varint value ${value} is not a safe integer; pass a bigint`);
    }
    let v = BigInt.asUintN(64, BigInt(value));
    while (v >= 0x80n) {
      this.byte(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    return this.byte(Number(v));
  }

  /** Writes a varint field (int32, int64, uint64, enum, bool). */
  varint(field: number, value: number | bigint | boolean): this {
    const v = typeof value === "boolean" ? (value ? 1 : 0) : value;
    return this.tag(field, WireType.VARINT).rawVarint(v);
  }

  /** Writes a fixed32 field (little-endian uint32). */
  fixed32(field: number, value: number): this {
    this.tag(field, WireType.FIXED32).reserve(4);
    this.view.setUint32(this.len, value >>> 0, true);
    this.len += 4;
    return this;
  }

  /** Writes a float field (fixed32 holding an IEEE-754 single). */
  float(field: number, value: number): this {
    this.tag(field, WireType.FIXED32).reserve(4);
    this.view.setFloat32(this.len, value, true);
    this.len += 4;
    return this;
  }

  /** Writes a fixed64 field (little-endian uint64). */
  fixed64(field: number, value: number | bigint): this {
    this.tag(field, WireType.FIXED64).reserve(8);
    this.view.setBigUint64(this.len, BigInt.asUintN(64, BigInt(value)), true);
    this.len += 8;
    return this;
  }

  /** Writes a double field (fixed64 holding an IEEE-754 double). */
  double(field: number, value: number): this {
    this.tag(field, WireType.FIXED64).reserve(8);
    this.view.setFloat64(this.len, value, true);
    this.len += 8;
    return this;
  }

  /** Writes a length-delimited bytes field. */
  bytes(field: number, value: Uint8Array): this {
    this.tag(field, WireType.LEN).rawVarint(value.length);
    return this.raw(value);
  }

  /** Writes a length-delimited UTF-8 string field. */
  string(field: number, value: string): this {
    return this.bytes(field, textEncoder.encode(value));
  }

  /** Writes a nested message field whose body `write` fills in. */
  message(field: number, write: (w: ProtoWriter) => void): this {
    const child = new ProtoWriter();
    write(child);
    this.tag(field, WireType.LEN).rawVarint(child.len);
    return this.raw(child.buf.subarray(0, child.len));
  }

  /** Writes a packed repeated varint field; nothing when `values` is empty (proto3 default). */
  packedVarints(field: number, values: ArrayLike<number | bigint>): this {
    if (values.length === 0) return this;
    const child = new ProtoWriter();
    for (let i = 0; i < values.length; i++) child.rawVarint(values[i] as number | bigint);
    this.tag(field, WireType.LEN).rawVarint(child.len);
    return this.raw(child.buf.subarray(0, child.len));
  }

  /** Writes a packed repeated float field; nothing when `values` is empty. */
  packedFloats(field: number, values: ArrayLike<number>): this {
    if (values.length === 0) return this;
    this.tag(field, WireType.LEN)
      .rawVarint(values.length * 4)
      .reserve(values.length * 4);
    for (let i = 0; i < values.length; i++) {
      this.view.setFloat32(this.len, values[i] as number, true);
      this.len += 4;
    }
    return this;
  }

  /** Writes a packed repeated fixed64 field (e.g. uint64 data); nothing when empty. */
  packedFixed64(field: number, values: ArrayLike<number | bigint>): this {
    if (values.length === 0) return this;
    this.tag(field, WireType.LEN)
      .rawVarint(values.length * 8)
      .reserve(values.length * 8);
    for (let i = 0; i < values.length; i++) {
      this.view.setBigUint64(this.len, BigInt.asUintN(64, BigInt(values[i] as number | bigint)), true);
      this.len += 8;
    }
    return this;
  }

  /** Appends bytes verbatim. */
  raw(bytes: Uint8Array): this {
    this.reserve(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
    return this;
  }

  private byte(b: number): this {
    this.reserve(1);
    this.buf[this.len++] = b;
    return this;
  }

  private reserve(n: number): this {
    const need = this.len + n;
    if (need <= this.buf.length) return this;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
    this.view = new DataView(next.buffer);
    return this;
  }
}
