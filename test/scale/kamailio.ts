/**
 * Debian's Kamailio started from deploy/kamailio/ (render.sh) for tests: the configuration and the
 * dispatcher list rendered into a private directory, Kamailio in the foreground on a port the test
 * picks, its log kept, and the dispatcher's view of each box read through kamcmd.
 */
import { join } from "node:path";
import { ROOT, testTool } from "../support/sawt.ts";

/** Path of Debian's kamailio; a missing one fails the test naming the package (`npm test` installs it). */
export function kamailioBinary(): string {
  return testTool(["kamailio", "/usr/sbin/kamailio"], "kamailio");
}

/** Path of kamcmd (same package). */
export function kamcmdBinary(): string {
  return testTool(["kamcmd", "/usr/sbin/kamcmd"], "kamailio");
}

/** Runs deploy/kamailio/render.sh; resolves its exit code, stdout (the config) and stderr. */
export function render(args: readonly string[]): { code: number; stdout: string; stderr: string } {
  const proc = Bun.spawnSync(["sh", join(ROOT, "deploy/kamailio/render.sh"), ...args], {
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: proc.exitCode ?? -1, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

/** A running Kamailio. */
export interface Kamailio {
  readonly port: number;
  readonly ctl: string;
  readonly logs: string[];
  /** The dispatcher's flags per box URI (`AP` active and probed, `IP` inactive, …). */
  states(): Promise<Record<string, string>>;
  /** Waits until every URI has flags starting with `flag` (`A` active, `I` inactive). */
  waitState(uris: readonly string[], flag: "A" | "I", timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Renders the configuration for `boxes` (`name=127.0.0.1:SIP`) into `dir` and starts Kamailio on
 * 127.0.0.1:`port`, logging to stderr (`options`: more render.sh options); resolves once its
 * control socket answers.
 */
export async function startKamailio(
  dir: string,
  port: number,
  boxes: readonly string[],
  options: readonly string[] = [],
): Promise<Kamailio> {
  const ctl = join(dir, "kamailio_ctl");
  const cfg = join(dir, "kamailio.cfg");
  const rendered = render([
    "--foreground",
    "--listen",
    `127.0.0.1:${port}`,
    "--list",
    join(dir, "dispatcher.list"),
    "--ctl",
    `unix:${ctl}`,
    ...options,
    ...boxes,
  ]);
  if (rendered.code !== 0) throw new Error(`render.sh failed: ${rendered.stderr}`);
  await Bun.write(cfg, rendered.stdout);
  const proc = Bun.spawn([kamailioBinary(), "-f", cfg, "-DD", "-E", "-Y", dir, "-w", dir, "-m", "32", "-M", "4"], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const logs: string[] = [];
  for (const stream of [proc.stdout, proc.stderr] as ReadableStream<Uint8Array>[]) {
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of stream) logs.push(...decoder.decode(chunk).split("\n").filter(Boolean));
    })();
  }
  const states = async () => {
    const out = Bun.spawnSync([kamcmdBinary(), "-s", `unix:${ctl}`, "dispatcher.list"], { stdout: "pipe" });
    const text = out.stdout.toString();
    const found: Record<string, string> = {};
    for (const match of text.matchAll(/URI: (\S+)\s+FLAGS: (\S+)/g)) found[match[1]!] = match[2]!;
    return found;
  };
  const stop = async () => {
    if (proc.exitCode !== null) return;
    proc.kill("SIGTERM");
    await Promise.race([proc.exited, Bun.sleep(5000)]);
    if (proc.exitCode === null) proc.kill("SIGKILL");
  };
  const waitState = async (uris: readonly string[], flag: "A" | "I", timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`kamailio exited ${proc.exitCode}:\n${logs.join("\n")}`);
      const now = await states();
      if (uris.every((u) => now[u]?.startsWith(flag))) return;
      if (Date.now() > deadline)
        throw new Error(`dispatcher states ${JSON.stringify(now)}, wanted ${flag} for ${uris}`);
      await Bun.sleep(100);
    }
  };
  try {
    const deadline = Date.now() + 10_000;
    while (Object.keys(await states()).length === 0) {
      if (proc.exitCode !== null || Date.now() > deadline)
        throw new Error(`kamailio did not start:\n${logs.join("\n")}`);
      await Bun.sleep(100);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, ctl, logs, states, waitState, stop };
}
