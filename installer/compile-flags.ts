/**
 * The `bun build` flags Sawt's executable is compiled with (installer/build.ts), shared with the
 * cold-start benchmark so its bare-Elysia floor is compiled the same way.
 */

/** Flags before the entry points; see installer/build.ts for why each is there. */
export const COMPILE_FLAGS: readonly string[] = ["--compile", "--minify-syntax", "--bytecode", "--format=esm"];
