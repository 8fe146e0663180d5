/**
 * Starts the real Sawt server (from source, or the compiled binary) as a child process on ephemeral
 * ports with a private data dir, reads its `listening` line and collects its logs. Tests talk to it
 * with real HTTP/gRPC clients.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Repository root. */
export const ROOT = join(import.meta.dir, "..", "..");
/** Path of the compiled binary produced by `bun run build`. */
export const BINARY = join(ROOT, "dist", "sawt");

/** A running server under test. */
export interface SawtProcess {
  readonly proc: ReturnType<typeof Bun.spawn>;
  /** The listening line's ports: `sip` and `mrcp` when the MRCP door is enabled, `audiosocket` when calls are. */
  readonly ports: {
    http: number;
    grpc_asr: number;
    grpc_tts: number;
    sip?: number;
    mrcp?: number;
    audiosocket?: number;
  };
  readonly baseUrl: string;
  readonly dataDir: string;
  readonly env: Record<string, string>;
  /** Every stderr (log) line so far. */
  readonly logs: string[];
  /** Creates a key through the CLI against the same data dir. */
  createKey(options?: {
    name?: string;
    rpm?: number;
    admin?: boolean;
  }): Promise<{ id: string; key: string; rpm: number }>;
  /** Sends a signal and waits for exit; resolves to the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/** How to start the server. */
export interface StartOptions {
  /** Use dist/sawt instead of `bun src/main.ts`. */
  readonly binary?: boolean;
  /** Extra env (SAWT_* settings). */
  readonly env?: Record<string, string>;
  /** Reuse a data dir (restart tests). */
  readonly dataDir?: string;
  /** Working directory (binary tests run from /). */
  readonly cwd?: string;
  readonly args?: readonly string[];
  /** A module for `bun --preload` (source runs only), e.g. one registering a test engine. */
  readonly preload?: string;
}

/** The command that runs the CLI (source or binary). */
export function cliCommand(binary = false): string[] {
  return binary ? [BINARY] : [process.execPath, join(ROOT, "src", "main.ts")];
}

/** Creates a private temporary directory; `remove` deletes it with its contents. */
export function tempDir(prefix = "sawt-test-"): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * The path of an outside tool a test checks Sawt against (chromium, promtool, shellcheck, ...).
 * `npm test` installs them all (installer/dev-setup.sh --test), so a missing one is a broken setup:
 * this throws, naming the Debian package, and the test fails instead of skipping.
 */
export function testTool(commands: string | readonly string[], debianPackage: string): string {
  for (const command of typeof commands === "string" ? [commands] : commands) {
    const path = Bun.which(command);
    if (path) return path;
  }
  throw new Error(`${commands} is not installed: run installer/dev-setup.sh --test (apt-get install ${debianPackage})`);
}

/**
 * `../shared/<relative>` when it is beside the checkout (searched upwards so worktrees and clones
 * both find it), else undefined. Only CI machines have `../shared`: a test may use it for the
 * exact references it holds, never need it (test/support/fixtures/ has what every machine can get).
 */
export function sharedIfPresent(relative: string): string | undefined {
  let dir = ROOT;
  for (let i = 0; i < 4; i++) {
    const candidate = join(dir, "..", "shared", relative);
    if (existsSync(candidate)) return candidate;
    dir = join(dir, "..");
  }
  return undefined;
}

/** Runs the CLI to completion. */
export async function runCli(
  args: readonly string[],
  options: { env?: Record<string, string>; binary?: boolean; cwd?: string; stdin?: string } = {},
) {
  const proc = Bun.spawn([...cliCommand(options.binary), ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, SAWT_LOG_LEVEL: "warn", SAWT_ASR_BUILTIN: "false", ...options.env },
    stdout: "pipe",
    stderr: "pipe",
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

/** Starts a server and resolves once it reports its ports (rejects if it exits first). */
export async function startSawt(options: StartOptions = {}): Promise<SawtProcess> {
  const dataDir = options.dataDir ?? tempDir("sawt-data-").path;
  const env: Record<string, string> = {
    SAWT_HTTP_PORT: "0",
    SAWT_GRPC_ASR_PORT: "0",
    SAWT_GRPC_TTS_PORT: "0",
    SAWT_DATA_DIR: dataDir,
    SAWT_LOG_LEVEL: "info",
    // Tests see the built-in recogniser only when they ask for it (SAWT_ASR_BUILTIN=true): whether
    // a checkout has fetched it must not change what a test without ASR packs sees.
    SAWT_ASR_BUILTIN: "false",
    ...options.env,
  };
  const command =
    options.preload && !options.binary
      ? [process.execPath, "--preload", options.preload, join(ROOT, "src", "main.ts")]
      : cliCommand(options.binary);
  const proc = Bun.spawn([...command, "serve", ...(options.args ?? [])], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const logs: string[] = [];
  const logsDrained = (async () => {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of proc.stderr) {
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      logs.push(...lines.filter((l) => l.length > 0));
    }
    if (pending) logs.push(pending);
  })();
  const reader = proc.stdout.getReader();
  let text = "";
  const deadline = Date.now() + 30_000;
  while (!text.includes("\n")) {
    const { value, done } = await Promise.race([
      reader.read(),
      Bun.sleep(Math.max(0, deadline - Date.now())).then(() => ({ value: undefined, done: true as const })),
    ]);
    if (done) {
      proc.kill("SIGKILL");
      throw new Error(`sawt serve did not report listening; logs:\n${logs.join("\n")}`);
    }
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const line = JSON.parse(text.split("\n")[0]!) as SawtProcess["ports"] & { msg: string };
  const ports = {
    http: line.http,
    grpc_asr: line.grpc_asr,
    grpc_tts: line.grpc_tts,
    ...(line.sip !== undefined ? { sip: line.sip, mrcp: line.mrcp } : {}),
    ...(line.audiosocket !== undefined ? { audiosocket: line.audiosocket } : {}),
  };
  return {
    proc,
    ports,
    baseUrl: `http://127.0.0.1:${ports.http}`,
    dataDir,
    env,
    logs,
    async createKey(opts = {}) {
      const args = ["keys", "create", "--name", opts.name ?? "test", "--json"];
      if (opts.rpm !== undefined) args.push("--rpm", String(opts.rpm));
      if (opts.admin) args.push("--admin");
      const result = await runCli(args, { env, binary: options.binary });
      if (result.code !== 0) throw new Error(`keys create failed: ${result.stderr}`);
      return JSON.parse(result.stdout);
    },
    async stop(signal = "SIGTERM") {
      if (proc.exitCode === null) proc.kill(signal);
      const code = await proc.exited;
      await logsDrained; // the last log lines may still be in the pipe when the process exits
      return code;
    },
  };
}

/**
 * Polls `check` every `everyMs` until it returns a truthy value, and resolves to that value; throws
 * after `timeoutMs` naming `what` (a function is called then, so the message can show the state).
 */
export async function until<T>(
  check: () => T | Promise<T>,
  what: string | (() => string),
  options: { timeoutMs?: number; everyMs?: number } = {},
): Promise<Exclude<T, undefined | null | false | 0 | "">> {
  const { timeoutMs = 20_000, everyMs = 5 } = options;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, undefined | null | false | 0 | "">;
    if (performance.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === "string" ? what : what()}`);
    }
    await Bun.sleep(everyMs);
  }
}

/** Polls `url` until it answers `status` (default 200) or the timeout passes. */
export async function waitForStatus(url: string, status = 200, timeoutMs = 20_000): Promise<Response> {
  let last: Response | undefined;
  const answer = async () => {
    last = await fetch(url).catch(() => undefined); // undefined: not up yet
    return last?.status === status ? last : undefined;
  };
  return until(answer, () => `${url} to answer ${status} (last: ${last?.status})`, { timeoutMs, everyMs: 50 });
}
