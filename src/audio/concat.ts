/**
 * Joins typed arrays (bytes, s16 or float samples) into one fresh array: the one place Sawt
 * concatenates buffers, so nobody hand-writes the offset loop again.
 */

/** Any typed array Sawt joins. */
type Joinable = Uint8Array | Int16Array | Float32Array;

/** Concatenates arrays of one kind into a fresh (hence aligned) array of the same kind. */
export function concatArrays<T extends Joinable>(parts: readonly T[], create: (length: number) => T): T {
  let total = 0;
  for (const part of parts) total += part.length;
  const out = create(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Concatenates byte chunks into one fresh (hence 8-byte aligned) array. */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  return concatArrays(chunks, (n) => new Uint8Array(n));
}

/** Concatenates float sample blocks. */
export function concatSamples(blocks: readonly Float32Array[]): Float32Array {
  return concatArrays(blocks, (n) => new Float32Array(n));
}

/** Concatenates s16 sample blocks. */
export function concatInt16(blocks: readonly Int16Array[]): Int16Array {
  return concatArrays(blocks, (n) => new Int16Array(n));
}
