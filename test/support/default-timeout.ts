/**
 * Preloaded by every `bun test` run (bunfig.toml `[test] preload`): integration tests start real
 * servers, ffmpeg and ONNX sessions, which take longer than bun's 5 s default on a loaded machine.
 * bun 1.4 ignores `timeout` under `[test]` in bunfig.toml; setDefaultTimeout from a preload applies
 * to every test and hook that sets no timeout of its own.
 */
import { setDefaultTimeout } from "bun:test";

setDefaultTimeout(60_000);
