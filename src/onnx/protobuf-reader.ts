/**
 * A bounds-checked protobuf wire-format reader over a random-access byte source. It walks a
 * message field by field and hands length-delimited payloads back as ranges, so a caller can skip
 * a 100 MB tensor by its length without touching its bytes. Malformed input throws
 * {@link ProtoFormatError}; every step consumes at least one byte, so it cannot loop forever.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/** Malformed protobuf input; `offset` is where reading failed. */
export class ProtoFormatError extends Error {
  override readonly name = "ProtoFormatError";
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} (at byte ${offset})`);
  }
}

/** Random access to the bytes of one encoded message. */
export interface ByteSource {
  readonly size: number;
  /** Exactly `length` bytes from `offset`; callers keep the range within `size`. */
  read(offset: number, length: number): Uint8Array;
}

/** A source over bytes already in memory. */
export function bytesSource(bytes: Uint8Array): ByteSource {
  return { size: bytes.length, read: (offset, length) => bytes.subarray(offset, offset + length) };
}

const WINDOW = 64 * 1024;

/**
 * A source over a file that reads through a small window, so that walking the headers of a large
 * model reads kilobytes, not the whole file. Close it when done.
 */
export function fileSource(path: string): ByteSource & { close(): void } {
  const fd = openSync(path, "r");
  const size = fstatSync(fd).size;
  const window = new Uint8Array(WINDOW);
  let windowStart = 0;
  let windowLength = 0;
  const fill = (dest: Uint8Array, offset: number): void => {
    let done = 0;
    while (done < dest.length) {
      const n = readSync(fd, dest, done, dest.length - done, offset + done);
      if (n === 0) throw new ProtoFormatError("file shrank while being read", offset + done);
      done += n;
    }
  };
  return {
    size,
    read(offset, length) {
      if (length > WINDOW) {
        const out = new Uint8Array(length);
        fill(out, offset);
        return out;
      }
      if (offset < windowStart || offset + length > windowStart + windowLength) {
        windowStart = offset;
        windowLength = Math.min(WINDOW, size - offset);
        fill(window.subarray(0, windowLength), offset);
      }
      return window.subarray(offset - windowStart, offset - windowStart + length);
    },
    close: () => closeSync(fd),
  };
}

/** One field of a message. For wire type 2, `start`/`end` delimit the payload. */
export interface ProtoField {
  readonly field: number;
  readonly wireType: number;
  /** The value of a varint field (int64 beyond 2^53 loses precision; negatives are signed). */
  readonly varint: number;
  readonly start: number;
  readonly end: number;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Reads the fields of the message stored in `[start, end)` of `source`. */
export class ProtoReader {
  constructor(
    readonly source: ByteSource,
    readonly start = 0,
    readonly end = source.size,
  ) {
    if (start < 0 || end > source.size || start > end) throw new ProtoFormatError("message range out of bounds", start);
  }

  /** Iterates the fields in order, skipping fixed-width payloads and length-delimited bodies. */
  *fields(): Generator<ProtoField> {
    let pos = this.start;
    while (pos < this.end) {
      const keyAt = pos;
      const key = this.varintAt(pos);
      pos = key.next;
      const field = Math.floor(key.value / 8);
      const wireType = key.value % 8;
      if (field < 1 || field > 0x1fffffff) throw new ProtoFormatError(`invalid field number ${field}`, keyAt);
      switch (wireType) {
        case 0: {
          const v = this.varintAt(pos);
          yield { field, wireType, varint: v.value, start: pos, end: v.next };
          pos = v.next;
          break;
        }
        case 1:
        case 5: {
          const width = wireType === 1 ? 8 : 4;
          if (pos + width > this.end) throw new ProtoFormatError(`truncated fixed${width * 8} field ${field}`, pos);
          yield { field, wireType, varint: 0, start: pos, end: pos + width };
          pos += width;
          break;
        }
        case 2: {
          const len = this.varintAt(pos);
          const start = len.next;
          if (len.value > this.end - start) {
            throw new ProtoFormatError(`length ${len.value} of field ${field} runs past the end of its message`, pos);
          }
          yield { field, wireType, varint: 0, start, end: start + len.value };
          pos = start + len.value;
          break;
        }
        default:
          throw new ProtoFormatError(`unsupported wire type ${wireType} for field ${field}`, keyAt);
      }
    }
  }

  /** A reader over a length-delimited field's payload, read as a nested message. */
  nested(f: ProtoField): ProtoReader {
    this.expectWire(f, 2);
    return new ProtoReader(this.source, f.start, f.end);
  }

  /** A length-delimited field's payload decoded as UTF-8. */
  string(f: ProtoField): string {
    this.expectWire(f, 2);
    try {
      return utf8.decode(this.source.read(f.start, f.end - f.start));
    } catch {
      throw new ProtoFormatError(`field ${f.field} is not valid UTF-8`, f.start);
    }
  }

  /** A varint field's value. */
  int(f: ProtoField): number {
    this.expectWire(f, 0);
    return f.varint;
  }

  private expectWire(f: ProtoField, wireType: number): void {
    if (f.wireType !== wireType) {
      throw new ProtoFormatError(`field ${f.field} has wire type ${f.wireType}, expected ${wireType}`, f.start);
    }
  }

  private varintAt(pos: number): { value: number; next: number } {
    const bytes = this.source.read(pos, Math.min(10, this.end - pos));
    let value = 0;
    let scale = 1;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i] as number;
      if (i === 9 && b > 1) throw new ProtoFormatError("varint overflows 64 bits", pos);
      if (b < 0x80) {
        // Ten-byte varints are negative int64s (two's complement); exact arithmetic needs BigInt.
        if (i === 9) return { value: signedFromBytes(bytes), next: pos + 10 };
        return { value: value + b * scale, next: pos + i + 1 };
      }
      value += (b & 0x7f) * scale;
      scale *= 0x80;
    }
    throw new ProtoFormatError(bytes.length < 10 ? "truncated varint" : "varint longer than 10 bytes", pos);
  }
}

function signedFromBytes(bytes: Uint8Array): number {
  let v = 0n;
  for (let i = 9; i >= 0; i--) v = (v << 7n) | BigInt((bytes[i] as number) & 0x7f);
  return Number(BigInt.asIntN(64, v));
}
