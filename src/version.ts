/** Sawt's version, from package.json (bundled into the binary at build time). */
import pkg from "../package.json" with { type: "json" };

/** The running version, e.g. `0.1.0`. */
export const VERSION: string = pkg.version;
