import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config/config.ts";
import { envName, SETTINGS } from "../../src/config/settings.ts";
import { runCli, tempDir } from "../support/sawt.ts";

const dir = tempDir("sawt-config-");
afterAll(() => dir.remove());

function toml(name: string, text: string): string {
  const path = join(dir.path, name);
  writeFileSync(path, text);
  return path;
}

describe("config", () => {
  test("does use documented defaults when nothing is set", () => {
    const config = loadConfig({ env: {}, cwd: dir.path });
    expect(config.server.host).toBe("127.0.0.1");
    expect(config.server.http_port).toBe(8080);
    expect(config.server.grpc_asr_port).toBe(9101);
    expect(config.server.grpc_tts_port).toBe(9102);
    expect(config.paths.data_dir).toBe(join(dir.path, "data"));
    expect(config.paths.models_dir).toBe(join(dir.path, "models"));
    expect(config.log.level).toBe("info");
  });

  test("does let env override the file and the file override defaults", () => {
    const file = toml("a.toml", `[server]\nhttp_port = 7000\nhost = "0.0.0.0"\n[tts]\nconcurrency = 3\n`);
    const config = loadConfig({ file, env: { SAWT_HTTP_PORT: "0", SAWT_TTS_MAX_QUEUE: "5" }, cwd: dir.path });
    expect(config.server.http_port).toBe(0);
    expect(config.server.host).toBe("0.0.0.0");
    expect(config.tts.concurrency).toBe(3);
    expect(config.tts.max_queue).toBe(5);
  });

  test("does name the design's env variables for the documented settings", () => {
    const names = SETTINGS.map(envName);
    for (const expected of [
      "SAWT_HOST",
      "SAWT_HTTP_PORT",
      "SAWT_GRPC_ASR_PORT",
      "SAWT_GRPC_TTS_PORT",
      "SAWT_DATA_DIR",
      "SAWT_MODELS_DIR",
      "SAWT_LOG_LEVEL",
      "SAWT_TTS_CONCURRENCY",
      "SAWT_TTS_MAX_QUEUE",
      "SAWT_TTS_QUEUE_TIMEOUT_MS",
      "SAWT_ASR_CONCURRENCY",
      "SAWT_ASR_MAX_QUEUE",
      "SAWT_ASR_QUEUE_TIMEOUT_MS",
    ]) {
      expect(names).toContain(expected);
    }
  });

  const bad: Array<[string, () => unknown, RegExp]> = [
    [
      "a port above 65535",
      () => loadConfig({ env: { SAWT_HTTP_PORT: "70000" }, cwd: dir.path }),
      /server\.http_port \(env SAWT_HTTP_PORT\): must be between 0 and 65535/,
    ],
    [
      "a non-numeric port",
      () => loadConfig({ env: { SAWT_GRPC_TTS_PORT: "abc" }, cwd: dir.path }),
      /server\.grpc_tts_port .*must be a number/,
    ],
    [
      "an unknown key",
      () => loadConfig({ file: toml("u.toml", `[server]\nhttp_prot = 1\n`), env: {}, cwd: dir.path }),
      /unknown key server\.http_prot/,
    ],
    [
      "an unknown section",
      () => loadConfig({ file: toml("s.toml", `[srever]\nx = 1\n`), env: {}, cwd: dir.path }),
      /unknown section \[srever\]/,
    ],
    [
      "a wrong type in the file",
      () => loadConfig({ file: toml("t.toml", `[tts]\nstrict_voices = "yes"\n`), env: {}, cwd: dir.path }),
      /tts\.strict_voices .*must be true or false/,
    ],
    [
      "an invalid log level",
      () => loadConfig({ env: { SAWT_LOG_LEVEL: "loud" }, cwd: dir.path }),
      /log\.level .*must be one of/,
    ],
    [
      "a models dir that does not exist",
      () => loadConfig({ env: { SAWT_MODELS_DIR: join(dir.path, "nope") }, cwd: dir.path }),
      /paths\.models_dir: .* is not a readable directory/,
    ],
    [
      "invalid TOML",
      () => loadConfig({ file: toml("x.toml", `[server\n`), env: {}, cwd: dir.path }),
      /is not valid TOML/,
    ],
    [
      "a missing config file",
      () => loadConfig({ file: join(dir.path, "missing.toml"), env: {}, cwd: dir.path }),
      /cannot read .*missing\.toml/,
    ],
    [
      "equal ports",
      () => loadConfig({ env: { SAWT_GRPC_ASR_PORT: "9000", SAWT_GRPC_TTS_PORT: "9000" }, cwd: dir.path }),
      /grpc_asr_port: must differ/,
    ],
  ];
  for (const [what, load, message] of bad) {
    test(`does fail naming the key when given ${what}`, () => {
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(message);
    });
  }

  test("does refuse an unreadable models dir", () => {
    if (process.getuid?.() === 0) {
      // root reads anything; a file in place of a directory is unreadable as a models dir for everyone
      const file = toml("not-a-dir", "x");
      expect(() => loadConfig({ env: { SAWT_MODELS_DIR: file }, cwd: dir.path })).toThrow(/paths\.models_dir/);
      return;
    }
    const locked = join(dir.path, "locked");
    mkdirSync(locked);
    chmodSync(locked, 0);
    expect(() => loadConfig({ env: { SAWT_MODELS_DIR: locked }, cwd: dir.path })).toThrow(/paths\.models_dir/);
  });

  test("does make `sawt serve` exit non-zero with one line naming the key on bad config", async () => {
    const result = await runCli(["serve"], { env: { SAWT_HTTP_PORT: "99999", SAWT_DATA_DIR: join(dir.path, "d") } });
    expect(result.code).not.toBe(0);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("server.http_port");
    expect(result.stdout).not.toContain("listening");
  });
});
