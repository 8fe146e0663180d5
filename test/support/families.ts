/**
 * Hands the built-in model families to the registry, as the entry points do (src/app/families.ts):
 * test code that reads packs without starting the server or the CLI imports this (bunfig.toml
 * preloads it for `bun test`; benchmarks, run as plain scripts, import it themselves).
 */
import "../../src/app/families.ts";
