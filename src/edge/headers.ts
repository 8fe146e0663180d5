/** How the edge reads a request's headers, whatever carries them (HTTP headers, gRPC metadata, …). */

/** A case-insensitive header lookup: the first value of `name`, or null. `Headers` is one. */
export interface HeaderGetter {
  get(name: string): string | null;
}
