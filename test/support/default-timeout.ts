/**
 * Preloaded by `bun test` (bunfig.toml `[test] preload`) so that `bun test <one file>` gets the
 * same 60 s default timeout as `npm test`. In bun 1.4.5 setDefaultTimeout from a preload reaches
 * only the first test file of a run, so test/run.ts passes `--timeout 60000` for whole runs; bun
 * ignores a `timeout` key under `[test]` in bunfig.toml.
 */
import { setDefaultTimeout } from "bun:test";

setDefaultTimeout(60_000);
